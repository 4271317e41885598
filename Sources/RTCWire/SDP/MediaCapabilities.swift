/// The codecs and header extensions one side supports; answers keep only what both support.
public struct MediaCapabilities: Hashable, Sendable {
    /// Audio codecs; name, clock rate and channels are matched, `feedback` lists what is accepted.
    public var audioCodecs: [Codec]
    /// Video codecs; include an `rtx` entry to accept retransmission streams.
    public var videoCodecs: [Codec]
    /// Header extension URIs accepted (`RTPHeaderExtensionURI`).
    public var headerExtensions: [String]

    public init(audioCodecs: [Codec], videoCodecs: [Codec], headerExtensions: [String]) {
        self.audioCodecs = audioCodecs
        self.videoCodecs = videoCodecs
        self.headerExtensions = headerExtensions
    }

    /// Opus, VP8 with RTX, and the six extensions the SFU reads.
    public static let webRTC = MediaCapabilities(
        audioCodecs: [.opus()], videoCodecs: [.vp8(), .rtx()],
        headerExtensions: [
            RTPHeaderExtensionURI.audioLevel, RTPHeaderExtensionURI.absSendTime, RTPHeaderExtensionURI.transportWideCC,
            RTPHeaderExtensionURI.mid, RTPHeaderExtensionURI.rid, RTPHeaderExtensionURI.repairedRid,
        ])

    /// The `a=extmap` lines to offer for `kind`, with Chrome's ids.
    public func extMaps(for kind: MediaKind) -> [ExtMap] {
        let chromeIDs: [(String, UInt16, Bool)] = [
            (RTPHeaderExtensionURI.audioLevel, 1, true), (RTPHeaderExtensionURI.absSendTime, 2, false),
            (RTPHeaderExtensionURI.transportWideCC, 3, false), (RTPHeaderExtensionURI.mid, 4, false),
            (RTPHeaderExtensionURI.rid, 10, false), (RTPHeaderExtensionURI.repairedRid, 11, false),
        ]
        return chromeIDs.compactMap { uri, id, audioOnly in
            guard headerExtensions.contains(uri) else { return nil }
            if kind == .audio && (uri == RTPHeaderExtensionURI.rid || uri == RTPHeaderExtensionURI.repairedRid) { return nil }
            if kind != .audio && audioOnly { return nil }
            return ExtMap(id: id, uri: uri)
        }
    }

    /// Codecs for a section kind.
    public func codecs(for kind: MediaKind) -> [Codec] {
        switch kind {
        case .audio: return audioCodecs
        case .video: return videoCodecs
        default: return []
        }
    }

    /// The offered codecs this side accepts, keeping the offer's payload types and fmtp
    /// (RFC 3264 §6.1) and the feedback both sides list. RTX is kept when its `apt` is kept; RED
    /// (RFC 2198) when every block's payload type is an accepted codec.
    public func negotiate(_ offered: [Codec], kind: MediaKind) -> [Codec] {
        let supported = codecs(for: kind)
        var accepted: [Codec] = []
        for codec in offered where !codec.isRTX {
            guard let match = supported.first(where: { Self.matches(codec, $0) }) else { continue }
            var answer = codec
            answer.feedback = codec.feedback.filter(match.feedback.contains)
            accepted.append(answer)
        }
        let mediaTypes = Set(accepted.filter { !$0.isRED }.map(\.payloadType))
        accepted.removeAll { $0.isRED && !($0.redundantPayloadTypes.map { !$0.isEmpty && $0.allSatisfy(mediaTypes.contains) } ?? false) }
        let acceptedTypes = Set(accepted.map(\.payloadType))
        if supported.contains(where: \.isRTX) {
            for codec in offered where codec.isRTX {
                guard let apt = codec.associatedPayloadType, acceptedTypes.contains(apt) else { continue }
                var answer = codec
                answer.feedback = []
                accepted.append(answer)
            }
        }
        return accepted
    }

    /// Same encoding name (case-insensitive), clock rate and channel count (absent means 1); for
    /// H.264 also packetization-mode 1 and the same profile (Constrained Baseline, Main or High,
    /// `H264ProfileLevelID.Profile`) on both sides (the level may differ: level-asymmetry-allowed,
    /// RFC 6184 §8.2.2); for VP9 the same `profile-id`
    /// (absent means 0, RFC 9628 §6); for AV1 the same `profile` (absent means 0, av1-rtp-spec §7.2.1).
    static func matches(_ a: Codec, _ b: Codec) -> Bool {
        guard a.name.lowercased() == b.name.lowercased(), a.clockRate == b.clockRate, (a.channels ?? 1) == (b.channels ?? 1) else {
            return false
        }
        switch a.name.lowercased() {
        case "h264": return a.h264Mode1Profile != nil && a.h264Mode1Profile == b.h264Mode1Profile
        case "vp9": return (a.parameter("profile-id") ?? "0") == (b.parameter("profile-id") ?? "0")
        case "av1": return (a.parameter("profile") ?? "0") == (b.parameter("profile") ?? "0")
        default: return true
        }
    }
}
