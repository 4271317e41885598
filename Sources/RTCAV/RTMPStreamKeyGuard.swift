// libavformat's RTMP listener (`listen=1`) accepts a publish to any stream name: when the name is
// not the one in its URL it only logs "Unexpected stream X, expecting Y" (rtmpproto.c) and takes
// the stream. An ingress must refuse a wrong stream key, so this guard watches libav's log for
// that message and stops the listener's blocking calls: the open fails before a single media
// packet is read, and the encoder's connection is closed.
import CAVCodec
import CAVFormat
import CAVUtil
import CSWScale
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Refuses RTMP publishes to another stream name than the listener's (one guarded open at a time
/// in a process: the ingress worker runs one).
public enum RTMPStreamKeyGuard {
    /// The interrupt of the open being guarded.
    private static let armed = Mutex<AVInterrupt?>(nil)
    /// Publishes refused since the process started.
    private static let refusals = Atomic<Int>(0)

    private static let installed: Void = {
        AVLibrary.initialize()
        av_log_set_callback { context, level, format, arguments in
            if let format, strncmp(format, RTMPStreamKeyGuard.message, RTMPStreamKeyGuard.messageLength) == 0 {
                RTMPStreamKeyGuard.refuse()
            }
            if let arguments { av_log_default_callback(context, level, format, arguments) }
        }
    }()

    /// The start of rtmpproto.c's message for a publish to another stream name.
    private static let message = "Unexpected stream "
    private static let messageLength = message.utf8.count

    /// Guards the opens made with `interrupt` until `disarm()`.
    public static func arm(_ interrupt: AVInterrupt) {
        _ = installed
        armed.withLock { $0 = interrupt }
    }

    public static func disarm() {
        armed.withLock { $0 = nil }
    }

    /// How many publishes were refused so far.
    public static var refusalCount: Int { refusals.load(ordering: .relaxed) }

    private static func refuse() {
        guard let interrupt = armed.withLock({ $0 }) else { return }
        refusals.add(1, ordering: .relaxed)
        interrupt.stop()
    }
}
