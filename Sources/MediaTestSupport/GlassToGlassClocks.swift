// Glass-to-glass delay of an encoder's push (docs/ingress.md): the numbered pictures are handed
// to an encoder's standard input at a known time (`FrameFeeder`), and a receiver notes when it
// decodes each number (`ArrivalClock`); the delays are matched by frame number. Used by the
// ingress tests and by `srtc-bench ingress`.
import Dispatch
import Foundation
import Processes
import RTCMedia

/// Monotonic milliseconds, the clock both ends use.
public func monotonicMilliseconds() -> Int64 { Int64(DispatchTime.now().uptimeNanoseconds / 1_000_000) }

/// Notes when each test-pattern frame number was first decoded (monotonic milliseconds): a
/// renderer of the tracks to watch hands it each decoded frame.
// @unchecked Sendable: `first` is only touched under `lock`.
public final class ArrivalClock: @unchecked Sendable {
    private let lock = NSLock()
    private var first: [Int: Int64] = [:]

    public init() {}

    public func decoded(_ frame: VideoFrame) {
        guard let number = TestPatternReader.frameNumber(in: frame) else { return }
        let now = monotonicMilliseconds()
        lock.withLock { if first[number] == nil { first[number] = now } }
    }

    /// Frame numbers decoded.
    public var count: Int { lock.withLock { first.count } }

    /// Arrival minus sending time of every frame both saw from frame `from` on (the first ones
    /// wait for the connection in the pipe), milliseconds.
    public func delays(since sent: [Int: Int64], from: Int = 30) -> [Int64] {
        lock.withLock { first.compactMap { n, at in n < from ? nil : sent[n].map { at - $0 } } }
    }
}

/// Writes Y4M frames to an encoder's standard input at `frameRate` from its own thread, noting
/// when each was handed over and when it was due by the schedule (monotonic milliseconds).
// @unchecked Sendable: the dictionaries and `running` are only touched under `lock`.
public final class FrameFeeder: @unchecked Sendable {
    private let lock = NSLock()
    private var sent: [Int: Int64] = [:]
    private var scheduled: [Int: Int64] = [:]
    private var running = true
    private let frameRate: Int

    public init(frameRate: Int) {
        self.frameRate = frameRate
    }

    /// Starts writing: `header` (the Y4M stream header), then `frame(n)` (one `FRAME` with its
    /// picture) for n in `0..<count`, paced, until `stop()` or a write fails.
    public func start(_ process: ChildProcess, header: [UInt8], count: Int, frame: @escaping @Sendable (Int) -> [UInt8]) {
        lock.withLock {
            sent = [:]
            scheduled = [:]
            running = true
        }
        let rate = UInt64(frameRate)
        let thread = Thread { [self] in
            guard let input = process.input, (try? input.write(contentsOf: header)) != nil else { return }
            let start = DispatchTime.now().uptimeNanoseconds
            for n in 0..<count {
                guard lock.withLock({ running }) else { return }
                let bytes = frame(n)
                let due = start + UInt64(n) * 1_000_000_000 / rate
                let now = DispatchTime.now().uptimeNanoseconds
                if due > now { usleep(UInt32((due - now) / 1_000)) }
                // Handed over when the encoder took the bytes from the pipe (a 64 KiB pipe holds
                // less than one picture).
                guard (try? input.write(contentsOf: bytes)) != nil else { return }
                let handed = monotonicMilliseconds()
                lock.withLock {
                    sent[n] = handed
                    scheduled[n] = Int64(due / 1_000_000)
                }
            }
            try? input.close()
        }
        thread.start()
    }

    public func stop() { lock.withLock { running = false } }
    /// When the encoder took each frame.
    public func times() -> [Int: Int64] { lock.withLock { sent } }
    /// When each frame was due by the schedule (its "capture" time).
    public func dueTimes() -> [Int: Int64] { lock.withLock { scheduled } }

    /// A Y4M stream of numbered test-pattern pictures: its header, and a function making frame
    /// `n`'s bytes (`FRAME` and the I420 picture) on demand, so a long 720p stream needs no memory.
    public static func pattern(width: Int, height: Int, frameRate: Int) throws -> (header: [UInt8], frame: @Sendable (Int) -> [UInt8]) {
        let header = try Y4MWriter(width: width, height: height, frameRate: frameRate).bytes
        let generator = try TestPatternGenerator(width: width, height: height, frameRate: frameRate)
        return (header, { n in
            guard let writer = try? Y4MWriter(width: width, height: height, frameRate: frameRate),
                  (try? writer.write(generator.videoFrame(number: n))) != nil else { return [] }
            return Array(writer.bytes.dropFirst(header.count))
        })
    }
}
