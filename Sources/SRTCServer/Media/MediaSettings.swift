import Foundation
import RTCNet

/// The media plane's ports, workers and timing (docs/architecture.md, "A channel larger than a
/// worker"; README's flags table), read by `ServerApp` when it starts the `MediaServer`.
public struct MediaSettings: Sendable, Equatable {
    /// The first media worker's UDP port (`--udp-port`, `SRTC_UDP_PORT`): worker i listens on
    /// `udpPort + i`, so a firewall opens `udpPort … udpPort + workers - 1`; 0: each worker picks one.
    public var udpPort: UInt16 = 7881
    /// TCP port for ICE-TCP (RFC 6544 passive candidates beside the UDP ones), for clients whose
    /// UDP is blocked (`--ice-tcp-port`, `SRTC_ICE_TCP_PORT`); unset: UDP only; 0 picks a free port.
    /// Like `udpPort`, the first worker's: worker i listens on `iceTCPPort + i`.
    public var iceTCPPort: UInt16?
    /// Scheduling priority of the media I/O thread: `normal`, `high` or `realtime`
    /// (`--media-thread-priority`, `SRTC_MEDIA_THREAD_PRIORITY`; see `IOThreadPriority`).
    public var threadPriority: IOThreadPriority = .normal
    /// Media workers, each a thread with its own event loop, UDP port and channels
    /// (`--media-workers`, `SRTC_MEDIA_WORKERS`); 0, the default, runs one per online CPU.
    public var workers: Int = 0
    /// Participants of one channel its worker serves before the next ones are served by another
    /// worker, which receives each track once from the channel's worker (docs/architecture.md,
    /// "A channel larger than a worker"; `--worker-subscriber-budget`,
    /// `SRTC_WORKER_SUBSCRIBER_BUDGET`); 0: no limit. Matters only with several workers.
    public var workerSubscriberBudget: Int = 200
    /// Seconds between quality reports (`--quality-interval-seconds`, `SRTC_QUALITY_INTERVAL_SECONDS`).
    public var qualityIntervalSeconds: Double = 5
    /// The order in which a publisher's video codec is picked among those its offer has, codecs
    /// not listed refused (`--video-codecs`, `SRTC_VIDEO_CODECS`); default: the offer's order.
    public var videoCodecs: VideoCodecPreference = .offerOrder

    public init() {}

    /// The media workers to run: `workers`, or one per online CPU when it is 0.
    public var effectiveWorkers: Int {
        workers > 0 ? workers : max(1, ProcessInfo.processInfo.activeProcessorCount)
    }
}
