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

    /// Level 3.1, Constrained Baseline: `42e01f`, what every WebRTC peer decodes.
    public static let constrainedBaselineLevel31 = H264ProfileLevelID(profileIDC: 0x42, profileIOP: 0xE0, levelIDC: 0x1F)

    /// The six lowercase hex digits.
    public var description: String {
        [profileIDC, profileIOP, levelIDC].map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }
}

extension Codec {
    /// H.264 in packetization-mode 1, Constrained Baseline level 3.1 (RFC 6184 §8.1), with the
    /// video feedback.
    public static func h264(payloadType: UInt8 = 102) -> Codec {
        Codec(payloadType: payloadType, name: "H264", clockRate: 90_000,
              formatParameters: "level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f",
              feedback: RTCPFeedback.videoDefaults)
    }

    /// For H.264: packetization-mode 1 (absent means 0, RFC 6184 §8.1) and a Constrained
    /// Baseline profile (absent means 420010, Baseline without constraints: refused).
    public var isH264ConstrainedBaselineMode1: Bool {
        guard name.lowercased() == "h264", parameter("packetization-mode") == "1",
              let profile = parameter("profile-level-id").flatMap(H264ProfileLevelID.init) else { return false }
        return profile.isConstrainedBaseline
    }
}
