/// What an ingress worker does (docs/ingress.md, "RTMP, SRT and URL ingest"): open `input` with
/// libavformat (a listening RTMP or SRT URL the encoder pushes to, or a URL it pulls), decode it,
/// and publish it into the channel under `uid` while media flows.
public struct IngressSettings: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable, CaseIterable {
        case rtmp, srt, url
    }

    public var kind: Kind
    /// The uid the stream appears as.
    public var uid: String
    /// What libavformat opens: `rtmp://0.0.0.0:PORT/live/KEY` with `listen`, an `srt://` listener
    /// URL, or the pulled URL.
    public var input: String
    /// For RTMP: the stream key an encoder must publish to; another name is refused (libavformat's
    /// listener only warns about it, see `RTMPStreamKeyGuard`).
    public var streamKey: String?
    /// The published camera's encoding ceiling (bits per second).
    public var videoBitrate: Int
    /// Whether the camera is published with a `camera_small` simulcast layer.
    public var simulcast: Bool

    public init(kind: Kind, uid: String, input: String, streamKey: String?, videoBitrate: Int = 2_000_000, simulcast: Bool = false) {
        self.kind = kind
        self.uid = uid
        self.input = input
        self.streamKey = streamKey
        self.videoBitrate = videoBitrate
        self.simulcast = simulcast
    }
}
