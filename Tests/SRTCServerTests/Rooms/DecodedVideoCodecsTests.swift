import Testing
@testable import SRTCServer

/// The join's `video_codecs` with H.264 profiles (docs/protocol.md, `join`): which tracks a
/// subscriber is sent, and which are refused with `codec_unsupported`.
@Suite struct DecodedVideoCodecsTests {
    /// What Debian's Chromium 156 lists (`RTCRtpReceiver.getCapabilities('video')`, packetization-mode 1),
    /// as the web SDK sends it: Baseline, Constrained Baseline, Main and High 4:4:4 Predictive, no High.
    static let chromium = ["vp8", "vp9", "av1", "h264", "h264;profile-level-id=42001f", "h264;profile-level-id=42e01f",
                           "h264;profile-level-id=4d001f", "h264;profile-level-id=f4001f"]
    /// What the Swift SDK sends (OpenH264 decodes Main and High).
    static let swiftSDK = ["vp8", "vp9", "h264", "h264;profile-level-id=4d001f", "h264;profile-level-id=64001f", "av1"]

    /// (the join's list, a track's codec and profile_level_id (nil: Constrained Baseline), sent?)
    @Test(arguments: [
        (chromium, "H264", nil, true),                  // Constrained Baseline
        (chromium, "H264", "4d001f", true),             // Main
        (chromium, "H264", "64001f", false),            // High: Chromium would answer without it
        (chromium, "VP8", nil, true),
        (swiftSDK, "H264", "64001f", true),
        (swiftSDK, "H264", "4d001f", true),
        (swiftSDK, "H264", nil, true),
        (["h264"], "H264", nil, true),                  // plain h264 is Constrained Baseline (RFC 6184 §8.1 default)
        (["H264"], "h264", "4d001f", false),            // … and not Main
        (["h264"], "H264", "64001f", false),
        (["h264;profile-level-id=640028"], "H264", "64001f", true),   // the level may differ (RFC 6184 §8.2.2)
        (["h264;profile-level-id=64001f"], "H264", "4d001f", false),  // the profile may not
        (["h264;profile-level-id=64001f"], "H264", nil, false),
        (["h264;profile-level-id=640c1f"], "H264", "64001f", false),  // Constrained High is another profile
        (["h264;profile-level-id=42001f"], "H264", nil, true),        // Baseline decodes Constrained Baseline
        (["H264; packetization-mode=1; Profile-Level-Id=4D001F"], "H264", "4d001f", true),  // spaces, case
        (["h264;packetization-mode=1"], "H264", nil, true),           // no profile-level-id: as plain h264
        (["h264;profile-level-id=zz"], "H264", nil, false),           // unreadable digits name nothing
        (["vp8"], "H264", nil, false),
        (["VP9"], "vp9", nil, true),
        (["vp8"], "VP9", nil, false),
        ([], "VP8", nil, false),
    ] as [([String], String, String?, Bool)])
    func aTrackIsSentWhenTheListHasItsCodecAndProfile(list: [String], codec: String, profileLevelID: String?, sent: Bool) {
        #expect(DecodedVideoCodecs(list).decodes(codec: codec, profileLevelID: profileLevelID) == sent,
                "\(list) decodes \(codec) \(profileLevelID ?? "constrained baseline")")
    }

    /// A track whose profile_level_id the server does not forward (it never announces one) is not
    /// sent to a client that names profiles.
    @Test func anUnknownTrackProfileIsNotSent() {
        #expect(!DecodedVideoCodecs(Self.chromium).decodes(codec: "H264", profileLevelID: "f4001f"))
    }
}
