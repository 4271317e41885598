import EgressProtocol
import SRTCProtocol

/// The bodies of `/server/v1/ingress/…` (docs/server-api.md, "Ingress"), snake_case as sent.
enum IngressRequests {
    struct Create: Decodable, Sendable {
        var channel: String
        var uid: String
        var kind: String
        /// The URL a `url` ingress pulls.
        var url: String?
        var transcode: TranscodeChoice?
    }

    /// Asks the ingress's camera to be decoded and re-encoded as VP8 (even when it is H.264
    /// Baseline or Main, which otherwise pass through), and how.
    struct Transcode: Decodable, Sendable {
        /// Add a `camera_small` simulcast layer (default false).
        var simulcast: Bool?
        /// The camera's ceiling in bits per second (default 2 000 000; 100 000…8 000 000).
        var video_bitrate: Int?
    }

    /// `transcode` as sent: an object (or `true`, the same as `{}`) always transcodes; `false`
    /// never transcodes H.264 that can pass through, High included (docs/ingress.md).
    enum TranscodeChoice: Decodable, Sendable {
        case always(Transcode)
        case never

        init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let flag = try? c.decode(Bool.self) {
                self = flag ? .always(Transcode()) : .never
            } else {
                self = .always(try c.decode(Transcode.self))
            }
        }

        var settings: Transcode? {
            if case .always(let t) = self { t } else { nil }
        }
    }

    struct Ref: Decodable, Sendable {
        var ingress_id: String
    }

    /// The checked request of a create body.
    static func request(_ body: Create) throws(EgressError) -> EgressSupervisor.IngressRequest {
        try EgressRequests.checkChannel(body.channel)
        try EgressRequests.checkUid(body.uid)
        guard let kind = IngressSettings.Kind(rawValue: body.kind) else {
            throw EgressError(.invalidParameter, "kind must be rtmp, srt or url, not \(body.kind)")
        }
        var pull: String?
        switch kind {
        case .url:
            guard let url = body.url else { throw EgressError(.invalidParameter, "a url ingress names the url to pull") }
            do throws(IngressURL.ParseError) {
                _ = try IngressURL(pull: url)
            } catch {
                throw EgressError(.invalidParameter, "url: \(describe(error))")
            }
            pull = url
        case .rtmp, .srt:
            guard body.url == nil else { throw EgressError(.invalidParameter, "url is for kind url; an \(kind.rawValue) ingress answers its own") }
        }
        let transcode = body.transcode?.settings
        let bitrate = transcode?.video_bitrate ?? 2_000_000
        guard (100_000...8_000_000).contains(bitrate) else { throw EgressError(.invalidParameter, "transcode.video_bitrate must be 100000...8000000") }
        var passesHigh = false
        if case .never = body.transcode { passesHigh = true }
        return .init(kind: kind, uid: body.uid, pullURL: pull, videoBitrate: bitrate, simulcast: transcode?.simulcast ?? false,
                     transcode: transcode != nil, passesHigh: passesHigh)
    }

    static func describe(_ error: IngressURL.ParseError) -> String {
        switch error {
        case .badLength: "empty or longer than \(IngressURL.maxBytes) bytes"
        case .forbiddenCharacter: "spaces, control characters and non-ASCII bytes are not allowed"
        case .unsupportedScheme(let scheme): "scheme '\(scheme)' is not one of http, https, rtmp, rtmps, srt"
        case .badAuthority: "no host, or a bad port"
        }
    }
}
