import Foundation
import Processes
import RTCMedia
import Synchronization

/// What PulseAudio's own recorder (`parec`, not the SDK) hears on a source: 48 kHz mono float
/// samples, each stamped with when it was read, collected on a thread until `stop()`.
public final class PCMRecording: Sendable {
    private let child: ChildProcess
    private let samples = Mutex<[Float]>([])
    /// When each chunk was read (monotonic ns) and the sample count after it: the recorder's clock.
    private let arrivals = Mutex<[(count: Int, uptimeNs: UInt64)]>([])

    init(server: String, source: String) throws {
        child = try ChildProcess("parec", ["-s", server, "-d", source, "--format=float32le", "--rate=48000", "--channels=1",
                                           "--raw", "--latency-msec=10"], pipeOutput: true)
        let handle = child.output!
        let thread = Thread { [self] in
            var carry: [UInt8] = []
            while true {
                let data = handle.availableData
                if data.isEmpty { return }
                carry += data
                let whole = carry.count / 4 * 4
                let floats = carry[0..<whole].withUnsafeBytes { raw in
                    (0..<(whole / 4)).map { raw.loadUnaligned(fromByteOffset: $0 * 4, as: Float.self) }
                }
                carry.removeFirst(whole)
                let now = DispatchTime.now().uptimeNanoseconds
                let count = samples.withLock { $0 += floats; return $0.count }
                arrivals.withLock { $0.append((count, now)) }
            }
        }
        thread.name = "test.parec"
        thread.start()
    }

    /// Every sample recorded so far.
    public var all: [Float] { samples.withLock { $0 } }

    /// Samples recorded so far.
    public var count: Int { samples.withLock { $0.count } }

    /// The last `seconds` of the recording.
    public func tail(seconds: Double) -> [Float] {
        samples.withLock { Array($0.suffix(Int(seconds * 48_000))) }
    }

    /// When sample `index` passed the source (monotonic ns, `DispatchTime.uptimeNanoseconds`):
    /// the arrival of the chunk that brought it, less the samples after it in that chunk. As
    /// exact as `parec`'s 10 ms fragments; nil when not recorded yet.
    public func uptime(ofSample index: Int) -> UInt64? {
        arrivals.withLock { all in
            guard let chunk = all.first(where: { $0.count > index }) else { return nil }
            return chunk.uptimeNs - UInt64((chunk.count - 1 - index) * 1_000_000_000 / 48_000)
        }
    }

    /// The frequency of the tone in the last `seconds`, or nil when too little was recorded or
    /// it is silent. The median period (`FrequencyEstimator.medianPeriodFrequency`): in a recorded
    /// run, two dropouts of 6 and 8 ms in the first second of playback (the playback thread
    /// starved on the loaded 2-core machine) made the span-based estimate read 435 Hz although
    /// every cycle played was at 440.0.
    public func toneFrequency(lastSeconds seconds: Double = 1) -> Double? {
        let tail = tail(seconds: seconds)
        guard tail.count >= Int(seconds * 48_000 * 0.9), FrequencyEstimator.rms(tail) > 0.02 else { return nil }
        return FrequencyEstimator.medianPeriodFrequency(tail, sampleRate: 48_000)
    }

    public func stop() async {
        await child.stop()
    }
}

/// A sine tone played into a PulseAudio sink by PulseAudio's own player (`pacat`), written from a
/// thread of its own in real time until `stop()`.
public final class TonePlayer: Sendable {
    private let child: ChildProcess
    private let running = Atomic<Bool>(true)

    init(server: String, sink: String, frequency: Double, amplitude: Double) throws {
        child = try ChildProcess("pacat", ["-s", server, "-d", sink, "--playback", "--format=float32le", "--rate=48000",
                                           "--channels=1", "--raw", "--latency-msec=20"], pipeInput: true)
        let handle = child.input!
        let thread = Thread { [self] in
            var tone = SineToneGenerator(frequency: frequency, amplitude: amplitude)
            let start = DispatchTime.now().uptimeNanoseconds
            var written = 0
            while running.load(ordering: .relaxed) {
                // Keep about 100 ms ahead of real time (pacat buffers the rest).
                let due = Int(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 * 48_000) + 4_800
                if written >= due {
                    usleep(10_000)
                    continue
                }
                let samples = tone.next(frameCount: 960).floatSamples
                let data = samples.withUnsafeBytes { Data($0) }
                do { try handle.write(contentsOf: data) } catch { return }
                written += 960
            }
        }
        thread.name = "test.pacat"
        thread.start()
    }

    public func stop() async {
        running.store(false, ordering: .relaxed)
        try? child.input?.close()
        await child.stop()
    }
}
