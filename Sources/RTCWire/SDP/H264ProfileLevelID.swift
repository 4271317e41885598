/// H.264's `profile-level-id` fmtp parameter (RFC 6184 §8.1): six hex digits, profile_idc,
/// profile-iop (constraint flags) and level_idc.
public struct H264ProfileLevelID: Hashable, Sendable {
    public var profileIDC: UInt8
    public var profileIOP: UInt8
    public var levelIDC: UInt8

    public init(profileIDC: UInt8, profileIOP: UInt8, levelIDC: UInt8) {
        self.profileIDC = profileIDC
        self.profileIOP = profileIOP
        self.levelIDC = levelIDC
    }

    /// Parses six hex digits; `nil` otherwise.
    public init?(_ text: String) {
        guard text.utf8.count == 6, let value = UInt32(text, radix: 16) else { return nil }
        profileIDC = UInt8(value >> 16)
        profileIOP = UInt8(value >> 8 & 0xFF)
        levelIDC = UInt8(value & 0xFF)
    }

    /// Constrained Baseline: Baseline (66) with constraint_set1, or Main (77) / Extended (88)
    /// with the flags that reduce them to it (H.264 §A.2.1, the table of RFC 6184 §8.1).
    public var isConstrainedBaseline: Bool {
        switch profileIDC {
        case 0x42: return profileIOP & 0x40 != 0
        case 0x4D: return profileIOP & 0x80 != 0
        case 0x58: return profileIOP & 0xC0 == 0xC0
        default: return false
        }
    }

    /// The profiles forwarded in WebRTC here (RFC 6184 §8.1's table): Constrained Baseline, which
    /// every WebRTC peer decodes, and Main and High, which Chromium and OpenH264 decode too (as long
    /// as the stream has no B-frames: RTP carries no decoding order).
    public enum Profile: String, Sendable, CaseIterable {
        case constrainedBaseline = "constrained_baseline"
        case main
        case high
    }

    /// The profile of these digits; nil for one not forwarded here (Baseline with FMO/ASO,
    /// Extended, Constrained High, High 10, 4:2:2, …).
    public var profile: Profile? {
        if isConstrainedBaseline { return .constrainedBaseline }
        switch profileIDC {
        // Main (77) that is not reduced to Constrained Baseline.
        case 0x4D: return .main
        // High (100) without constraint_set4/5 (Constrained High, §A.2.4.2, is another profile).
        case 0x64: return profileIOP & 0x0C == 0x0C ? nil : .high
        default: return nil
        }
    }

    /// Level 3.1, Constrained Baseline: `42e01f`, what every WebRTC peer decodes.
    public static let constrainedBaselineLevel31 = H264ProfileLevelID(profileIDC: 0x42, profileIOP: 0xE0, levelIDC: 0x1F)
    /// Level 3.1, Main: `4d001f`.
    public static let mainLevel31 = H264ProfileLevelID(profileIDC: 0x4D, profileIOP: 0x00, levelIDC: 0x1F)
    /// Level 3.1, High: `64001f`.
    public static let highLevel31 = H264ProfileLevelID(profileIDC: 0x64, profileIOP: 0x00, levelIDC: 0x1F)

    /// The level 3.1 digits of `profile` (the level is not negotiated: level-asymmetry-allowed,
    /// RFC 6184 §8.2.2).
    public static func level31(_ profile: Profile) -> H264ProfileLevelID {
        switch profile {
        case .constrainedBaseline: constrainedBaselineLevel31
        case .main: mainLevel31
        case .high: highLevel31
        }
    }

    /// The six lowercase hex digits.
    public var description: String {
        [profileIDC, profileIOP, levelIDC].map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }
}

extension Codec {
    /// H.264 in packetization-mode 1 at level 3.1 (RFC 6184 §8.1) of `profile` (Constrained
    /// Baseline unless told), with the video feedback.
    public static func h264(payloadType: UInt8 = 102, profile: H264ProfileLevelID.Profile = .constrainedBaseline) -> Codec {
        Codec(payloadType: payloadType, name: "H264", clockRate: 90_000,
              formatParameters: "level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=\(H264ProfileLevelID.level31(profile).description)",
              feedback: RTCPFeedback.videoDefaults)
    }

    /// For H.264 in packetization-mode 1 (absent means 0, RFC 6184 §8.1): its profile when it is
    /// one forwarded here (no `profile-level-id` means 420010, Baseline without constraints: nil).
    public var h264Mode1Profile: H264ProfileLevelID.Profile? {
        guard name.lowercased() == "h264", parameter("packetization-mode") == "1" else { return nil }
        return parameter("profile-level-id").flatMap(H264ProfileLevelID.init)?.profile
    }

    /// For H.264: packetization-mode 1 and a Constrained Baseline profile.
    public var isH264ConstrainedBaselineMode1: Bool { h264Mode1Profile == .constrainedBaseline }
}
