import EgressProtocol
import SRTCProtocol

/// The JSON bodies of the egress routes (docs/egress.md), decoded and then checked field by field
/// against the documented ranges; every refusal names the field.
enum EgressRequests {
    struct CompositeStart: Decodable, Sendable {
        var channel: String
        var uid: String
        var layout: EgressLayout?
        var width: Int?
        var height: Int?
        var frame_rate: Int?
        var bitrate: Int?
        var audio: Bool?
        var idle_timeout: Int?
        /// The trusted recorder's keys (docs/e2ee.md).
        var e2ee: EgressE2EEKeys?
    }

    struct CompositeRef: Decodable, Sendable {
        var channel: String
        var uid: String
    }

    struct CompositeUpdate: Decodable, Sendable {
        var channel: String
        var uid: String
        var layout: EgressLayout
    }

    struct ChannelFilter: Decodable, Sendable {
        var channel: String?
    }

    struct RecordStart: Decodable, Sendable {
        var channel: String
        var kind: RecordingKind?
        var format: RecordingFormat?
        var track_id: String?
        var uid: String?
        var desc: String?
        var idle_timeout: Int?
        /// The trusted recorder's keys (docs/e2ee.md).
        var e2ee: EgressE2EEKeys?
    }

    /// `e2ee/keys`: more keys for a running recording (`recording_id`) or composite (`uid`).
    struct E2EEKeysUpdate: Decodable, Sendable {
        var channel: String
        var recording_id: String?
        var uid: String?
        var keys: [EgressE2EEKeys.ParticipantKey]
    }

    /// Refuses keys that cannot be used (`EgressE2EEKeys.problem`).
    static func checkE2EE(_ keys: EgressE2EEKeys?) throws(EgressError) {
        if let problem = keys?.problem { throw EgressError(.invalidParameter, problem) }
    }

    struct RecordRef: Decodable, Sendable {
        var recording_id: String
    }

    struct RecordList: Decodable, Sendable {
        var channel: String?
        var status: String?
        var limit: Int?
    }

    struct LiveStart: Decodable, Sendable {
        var channel: String
        var uid: String
        var hls: Bool?
        var rtmp_url: String?
    }

    // MARK: - Limits

    static let sizes = (minWidth: 64, maxWidth: 3840, minHeight: 48, maxHeight: 2160)
    static let frameRates = 1...60
    static let bitrates = 50_000...20_000_000
    static let idleTimeouts = 5...86_400
    static let maxURLBytes = 1024

    // MARK: - Checks

    /// A channel name egress can use: a valid identifier that is also a safe directory name.
    static func checkChannel(_ name: String) throws(EgressError) {
        guard Identifier.isValid(name) else { throw EgressError(.invalidParameter, "invalid channel name") }
        guard !name.hasPrefix(".") else { throw EgressError(.invalidParameter, "a channel recorded or streamed cannot start with '.'") }
    }

    static func checkUid(_ uid: String, field: String = "uid") throws(EgressError) {
        guard Identifier.isValid(uid) else { throw EgressError(.invalidParameter, "invalid \(field)") }
    }

    /// The composite settings of a start body, defaults filled in.
    static func settings(_ b: CompositeStart) throws(EgressError) -> CompositeSettings {
        try checkChannel(b.channel)
        try checkUid(b.uid)
        try checkE2EE(b.e2ee)
        let width = b.width ?? 1280, height = b.height ?? 720
        guard (sizes.minWidth...sizes.maxWidth).contains(width), width % 2 == 0 else {
            throw EgressError(.invalidParameter, "width must be even, \(sizes.minWidth)...\(sizes.maxWidth)")
        }
        guard (sizes.minHeight...sizes.maxHeight).contains(height), height % 2 == 0 else {
            throw EgressError(.invalidParameter, "height must be even, \(sizes.minHeight)...\(sizes.maxHeight)")
        }
        let frameRate = b.frame_rate ?? 30, bitrate = b.bitrate ?? 2_000_000, idle = b.idle_timeout ?? 60
        guard frameRates.contains(frameRate) else { throw EgressError(.invalidParameter, "frame_rate must be 1...60") }
        guard bitrates.contains(bitrate) else { throw EgressError(.invalidParameter, "bitrate must be 50000...20000000") }
        guard idleTimeouts.contains(idle) else { throw EgressError(.invalidParameter, "idle_timeout must be 5...86400 seconds") }
        return CompositeSettings(uid: b.uid, layout: b.layout ?? .grid, width: width, height: height, frameRate: frameRate,
                                 bitrate: bitrate, audio: b.audio ?? true, idleTimeoutSeconds: idle)
    }

    /// An RTMP target: `rtmp://` or `rtmps://`, printable, bounded.
    static func checkRTMP(_ url: String) throws(EgressError) {
        guard url.hasPrefix("rtmp://") || url.hasPrefix("rtmps://") else { throw EgressError(.invalidParameter, "rtmp_url must be rtmp:// or rtmps://") }
        guard url.utf8.count <= maxURLBytes, !url.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F }) else {
            throw EgressError(.invalidParameter, "rtmp_url must be at most \(maxURLBytes) bytes without spaces or control characters")
        }
    }
}
