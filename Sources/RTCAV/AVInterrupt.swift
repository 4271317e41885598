// libavformat's blocking I/O (opening an RTMP connection, reading an HTTP playlist) polls an
// interrupt callback; this flag is what it polls, so another thread can stop a stuck read and a
// deadline can bound a connection attempt.
import CAVCodec
import CAVFormat
import CAVUtil
import CSWScale
import Dispatch
import Synchronization

/// A stop flag and an optional deadline for the blocking calls of one muxer or demuxer.
public final class AVInterrupt: Sendable {
    private let stopped = Atomic<Bool>(false)
    /// Monotonic nanoseconds after which blocking calls give up; 0 = no deadline.
    private let deadline = Atomic<UInt64>(0)

    public init() {}

    /// Makes every blocking call return `.interrupted` from now on.
    public func stop() { stopped.store(true, ordering: .relaxed) }

    /// Whether `stop()` was called.
    public var isStopped: Bool { stopped.load(ordering: .relaxed) }

    /// Bounds the blocking calls that follow to `seconds` from now (nil removes the bound).
    public func setTimeout(_ seconds: Double?) {
        let value = seconds.map { DispatchTime.now().uptimeNanoseconds &+ UInt64(max(0, $0) * 1e9) } ?? 0
        deadline.store(value, ordering: .relaxed)
    }

    var shouldInterrupt: Bool {
        if isStopped { return true }
        let limit = deadline.load(ordering: .relaxed)
        return limit != 0 && DispatchTime.now().uptimeNanoseconds > limit
    }

    /// The callback record for `AVFormatContext.interrupt_callback`; `self` must outlive the context.
    var callback: AVIOInterruptCB {
        AVIOInterruptCB(callback: { opaque in
            guard let opaque else { return 0 }
            return Unmanaged<AVInterrupt>.fromOpaque(opaque).takeUnretainedValue().shouldInterrupt ? 1 : 0
        }, opaque: Unmanaged.passUnretained(self).toOpaque())
    }
}
