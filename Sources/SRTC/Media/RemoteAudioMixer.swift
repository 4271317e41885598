import Dispatch
import RTCMedia
import Synchronization

/// Mixes the decoded audio of every subscribed remote audio track (of every channel) into the one
/// mono 48 kHz stream the speaker plays.
///
/// Each track (source) fills its own ring buffer from its receive thread, 20 ms at a time, in
/// network rhythm; the output pulls any number of samples in its own rhythm. A source starts
/// playing once `prefill` samples are buffered, which absorbs arrival jitter, and buffers again
/// after running dry. A source more than `maxDepth` ahead (its clock runs faster than the
/// speaker's, or a burst arrived) drops its oldest samples down to `prefill`, so latency stays
/// bounded. Sources that sent nothing for two seconds are forgotten. The sum is clamped to ±1.
/// Muted, the mixer outputs silence and discards what arrives (nothing piles up).
final class RemoteAudioMixer: Sendable {
    // MARK: - Types

    private struct Source {
        var ring: [Float]
        var read = 0
        var count = 0
        var playing = false
        var lastPush: UInt64 = 0
        /// Only for sources not at 48 kHz (the SDK's own decoder always is).
        var resampler: AudioResampler?
        let prefill: Int

        init(capacity: Int, prefill: Int) {
            ring = [Float](repeating: 0, count: capacity)
            self.prefill = prefill
        }

        mutating func append(_ sample: Float) {
            if count == ring.count { read = (read + 1) % ring.count; count -= 1 }   // full: drop the oldest
            ring[(read + count) % ring.count] = sample
            count += 1
        }

        /// Adds this source's next samples to `output` (once it has buffered enough).
        mutating func mix(into output: UnsafeMutableBufferPointer<Float>) {
            if !playing && count >= prefill { playing = true }
            guard playing else { return }
            let n = min(output.count, count)
            for i in 0..<n { output[i] += ring[(read + i) % ring.count] }
            drop(n)
            if n < output.count { playing = false }   // ran dry: buffer up again
        }

        /// Empty and silent for two seconds: the track is gone or no longer subscribed.
        func isStale(now: UInt64) -> Bool {
            count == 0 && now &- lastPush > 2_000_000_000
        }

        mutating func drop(_ n: Int) {
            let n = min(n, count)
            read = (read + n) % ring.count
            count -= n
        }
    }

    // MARK: - Properties

    static let sampleRate = 48_000
    /// Buffered before a source plays: 40 ms.
    let prefill: Int
    /// Most a source may run ahead: 120 ms.
    let maxDepth: Int
    private let sources = Mutex<[ObjectIdentifier: Source]>([:])
    private let mutedFlag = Atomic<Bool>(false)

    init(prefill: Int = 1_920, maxDepth: Int = 5_760) {
        self.prefill = prefill
        self.maxDepth = max(prefill, maxDepth)
    }

    // MARK: - Internals

    /// Whether the output is silent.
    var isMuted: Bool {
        get { mutedFlag.load(ordering: .relaxed) }
        set {
            mutedFlag.store(newValue, ordering: .relaxed)
            if newValue { sources.withLock { $0.removeAll() } }
        }
    }

    /// Adds decoded audio of `source` (any rate; channels averaged to mono).
    func push(_ source: ObjectIdentifier, _ buffer: AudioPCMBuffer) {
        guard !isMuted, buffer.frameCount > 0 else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        sources.withLock { all in
            var s = all[source] ?? Source(capacity: 4 * maxDepth, prefill: prefill)
            s.lastPush = now
            if buffer.sampleRate != Self.sampleRate {
                if s.resampler == nil { s.resampler = AudioResampler(outputRate: Self.sampleRate, outputChannels: 1) }
                for sample in s.resampler!.process(buffer) { s.append(sample) }
            } else {
                let channels = buffer.channels, scale = 1 / Float(channels)
                switch buffer.samples {
                case .float32(let values):
                    for frame in 0..<buffer.frameCount {
                        var sum: Float = 0
                        for c in 0..<channels { sum += values[frame * channels + c] }
                        s.append(sum * scale)
                    }
                case .int16(let values):
                    for frame in 0..<buffer.frameCount {
                        var sum: Float = 0
                        for c in 0..<channels { sum += Float(values[frame * channels + c]) }
                        s.append(sum * scale / 32_768)
                    }
                }
            }
            if s.count > maxDepth { s.drop(s.count - prefill) }
            all[source] = s
        }
    }

    /// Fills `output` with the next samples of the mix.
    func pull(into output: UnsafeMutableBufferPointer<Float>) {
        output.update(repeating: 0)
        guard !isMuted else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        sources.withLock { all in
            // In place (no copy of the table per pull); sources gone quiet are dropped afterwards.
            var stale = false
            for index in all.indices {
                all.values[index].mix(into: output)
                stale = stale || all.values[index].isStale(now: now)
            }
            if stale { all = all.filter { !$0.value.isStale(now: now) } }
        }
        for i in 0..<output.count { output[i] = max(-1, min(1, output[i])) }
    }

    /// How many sources are known (playing or buffering).
    var sourceCount: Int { sources.withLock { $0.count } }

    /// Forgets every source.
    func reset() {
        sources.withLock { $0.removeAll() }
    }
}
