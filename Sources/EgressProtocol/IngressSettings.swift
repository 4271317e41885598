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
    /// Whether video is always decoded and re-encoded (the create request had `transcode`); else
    /// H.264 Baseline passes through as it came (docs/ingress.md, "H.264 passthrough").
    public var transcode: Bool
    /// Whether H.264 High passes through too (the create request had `"transcode": false`); else
    /// High is transcoded, as browsers without a High decoder could not play it (docs/ingress.md).
    public var passesHigh: Bool

    public init(kind: Kind, uid: String, input: String, streamKey: String?, videoBitrate: Int = 2_000_000, simulcast: Bool = false,
                transcode: Bool = false, passesHigh: Bool = false) {
        self.kind = kind
        self.uid = uid
        self.input = input
        self.streamKey = streamKey
        self.videoBitrate = videoBitrate
        self.simulcast = simulcast
        self.transcode = transcode
        self.passesHigh = passesHigh
    }

    private enum CodingKeys: String, CodingKey {
        case kind, uid, input, streamKey, videoBitrate, simulcast, transcode, passesHigh
    }

    /// Settings stored before passthrough existed have no `transcode`: they pass H.264 through;
    /// those stored before `passesHigh` transcode High.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        kind = try c.decode(Kind.self, forKey: .kind)
        uid = try c.decode(String.self, forKey: .uid)
        input = try c.decode(String.self, forKey: .input)
        streamKey = try c.decodeIfPresent(String.self, forKey: .streamKey)
        videoBitrate = try c.decode(Int.self, forKey: .videoBitrate)
        simulcast = try c.decode(Bool.self, forKey: .simulcast)
        transcode = try c.decodeIfPresent(Bool.self, forKey: .transcode) ?? false
        passesHigh = try c.decodeIfPresent(Bool.self, forKey: .passesHigh) ?? false
    }
}
