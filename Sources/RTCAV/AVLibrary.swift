// Process-wide libav settings, applied once before the first use of any wrapper.
import CAVCodec
import CAVFormat
import CAVUtil
import CSWScale

/// One-time setup of the FFmpeg libraries.
public enum AVLibrary {
    private static let once: Void = {
        // libav logs to standard error by default; keep its warnings, drop its chatter.
        av_log_set_level(AV_LOG_ERROR)
        // Network protocols (RTMP, HTTP for HLS input) need the network layer set up once.
        avformat_network_init()
    }()

    /// Applies the settings (idempotent; every wrapper calls it).
    public static func initialize() { _ = once }

    /// Sets libav's log level: `AV_LOG_QUIET`, `AV_LOG_ERROR` (default), `AV_LOG_WARNING`, `AV_LOG_INFO`, `AV_LOG_DEBUG`.
    public static func setLogLevel(_ level: Int32) {
        initialize()
        av_log_set_level(level)
    }

    /// The linked libavformat, libavcodec and libavutil versions (`59.27.100` …), for logs and benchmarks.
    public static var versions: String {
        func text(_ v: UInt32) -> String { "\(v >> 16).\(v >> 8 & 0xFF).\(v & 0xFF)" }
        return "avformat \(text(avformat_version())) avutil \(text(avutil_version()))"
    }
}
