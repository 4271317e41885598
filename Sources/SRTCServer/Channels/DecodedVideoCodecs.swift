import RTCWire

/// The video a client said it decodes: its join's `video_codecs` (docs/protocol.md, `join`).
/// An entry is a codec name (`"vp8"`), or for H.264 a name with the profile it accepts, in the
/// form of an SDP `a=fmtp` (`"h264;profile-level-id=64001f"`, RFC 6184 §8.1). A subscription to
/// a video track it does not decode is refused with `codec_unsupported` instead of being offered
/// an m-section the client would reject (its answer leaving the codec out, and no packet sent).
struct DecodedVideoCodecs: Sendable, Equatable {
    /// Lowercased names of the codecs other than H.264.
    private(set) var names: Set<String> = []
    /// The H.264 profiles the client accepts an offer of.
    private(set) var h264Profiles: Set<H264ProfileLevelID.Profile> = []

    /// - Parameter entries: the join's `video_codecs` as sent (names compared case-insensitively).
    init(_ entries: [String]) {
        for entry in entries {
            var parts = entry.lowercased().filter { $0 != " " }.split(separator: ";").map(String.init)
            let name = parts.isEmpty ? "" : parts.removeFirst()
            guard name == "h264" else {
                if !name.isEmpty { names.insert(name) }
                continue
            }
            let digits = parts.first { $0.hasPrefix("profile-level-id=") }?.dropFirst("profile-level-id=".count)
            // A plain "h264" is what SDP without a profile-level-id means (RFC 6184 §8.1: Baseline),
            // which the server sends as Constrained Baseline; Main and High must be named.
            guard let digits else {
                h264Profiles.insert(.constrainedBaseline)
                continue
            }
            if let profile = Self.accepted(String(digits)) { h264Profiles.insert(profile) }
        }
    }

    /// The profile an offer of these digits would be accepted in. Plain Baseline (`42001f`, which
    /// Chromium lists beside `42e01f`) decodes every Constrained Baseline stream.
    private static func accepted(_ digits: String) -> H264ProfileLevelID.Profile? {
        guard let id = H264ProfileLevelID(digits) else { return nil }
        return id.profileIDC == 0x42 ? .constrainedBaseline : id.profile
    }

    /// Whether a video track published in `codec` (TrackInfo's `codec`) with `profileLevelID`
    /// (TrackInfo's, for H.264; absent is Constrained Baseline) may be sent. The profile must be
    /// the one accepted, as in offer/answer (RFC 6184 §8.2.2: the level may differ, the profile
    /// may not); the server offers a track in its own profile only.
    func decodes(codec: String, profileLevelID: String?) -> Bool {
        let name = codec.lowercased()
        guard name == "h264" else { return names.contains(name) }
        guard let digits = profileLevelID else { return h264Profiles.contains(.constrainedBaseline) }
        guard let profile = H264ProfileLevelID(digits)?.profile else { return false }
        return h264Profiles.contains(profile)
    }
}
