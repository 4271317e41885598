/// One RTP payload format of a media section: the `m=` format number with its `a=rtpmap`,
/// `a=fmtp` and `a=rtcp-fb` lines (RFC 8866 §6.6, §6.15; RFC 4585 §4.2).
public struct Codec: Hashable, Sendable {
    /// Payload type, 0–127.
    public var payloadType: UInt8
    /// Encoding name from `a=rtpmap` (`opus`, `VP8`, `rtx`); empty when the format has no rtpmap.
    public var name: String
    /// Clock rate in Hz.
    public var clockRate: UInt32
    /// Audio channels when given (`opus/48000/2`).
    public var channels: UInt16?
    /// The `a=fmtp` parameters exactly as written (`minptime=10;useinbandfec=1`).
    public var formatParameters: String?
    /// `a=rtcp-fb` entries for this payload type.
    public var feedback: [RTCPFeedback]

    public init(
        payloadType: UInt8, name: String, clockRate: UInt32, channels: UInt16? = nil,
        formatParameters: String? = nil, feedback: [RTCPFeedback] = []
    ) {
        self.payloadType = payloadType
        self.name = name
        self.clockRate = clockRate
        self.channels = channels
        self.formatParameters = formatParameters
        self.feedback = feedback
    }

    /// Opus (RFC 7587): 48 kHz, 2 channels, in-band FEC on.
    public static func opus(payloadType: UInt8 = 111) -> Codec {
        Codec(
            payloadType: payloadType, name: "opus", clockRate: 48_000, channels: 2,
            formatParameters: "minptime=10;useinbandfec=1", feedback: [RTCPFeedback(type: "transport-cc")])
    }

    /// VP8 (RFC 7741) with the feedback browsers use.
    public static func vp8(payloadType: UInt8 = 96) -> Codec {
        Codec(payloadType: payloadType, name: "VP8", clockRate: 90_000, feedback: RTCPFeedback.videoDefaults)
    }

    /// RTX retransmission (RFC 4588) for `associatedPayloadType`.
    public static func rtx(payloadType: UInt8 = 97, associatedPayloadType: UInt8 = 96) -> Codec {
        Codec(payloadType: payloadType, name: "rtx", clockRate: 90_000, formatParameters: "apt=\(associatedPayloadType)")
    }

    /// The fmtp parameters as ordered key/value pairs (`key` alone has a nil value).
    public var parameters: [(key: String, value: String?)] {
        guard let formatParameters else { return [] }
        return formatParameters.split(separator: ";").map { item in
            let trimmed = item.trimmingSpaces
            let (key, value) = SDPScanner.splitOnce(trimmed, "=")
            return (String(key), value.map(String.init))
        }
    }

    /// The value of fmtp parameter `key` (case-insensitive).
    public func parameter(_ key: String) -> String? {
        parameters.first { $0.key.lowercased() == key.lowercased() }?.value ?? nil
    }

    /// For `rtx`: the payload type it repairs (`apt=`).
    public var associatedPayloadType: UInt8? { parameter("apt").flatMap { UInt8($0) } }

    /// True for retransmission formats.
    public var isRTX: Bool { name.lowercased() == "rtx" }

    /// True for redundant audio data, `audio/red` (RFC 2198).
    public var isRED: Bool { name.lowercased() == "red" }

    /// For `red`: the payload types of its blocks, from the fmtp `111/111` (RFC 2198 §5, the form
    /// Chromium writes: one entry per block, redundant first); nil when absent or not numbers.
    public var redundantPayloadTypes: [UInt8]? {
        guard let text = formatParameters?.split(separator: ";").first?.trimmingSpaces, !text.isEmpty else { return nil }
        var types: [UInt8] = []
        for part in text.split(separator: "/", omittingEmptySubsequences: false) {
            guard let type = UInt8(part.trimmingSpaces), type < 128 else { return nil }
            types.append(type)
        }
        return types
    }

    /// `audio/red` at 48 kHz, 2 channels, carrying `opusPayloadType` in a primary and one redundant
    /// block (`a=fmtp:63 111/111`, as Chromium offers it).
    public static func red(payloadType: UInt8 = 63, opusPayloadType: UInt8 = 111) -> Codec {
        Codec(payloadType: payloadType, name: "red", clockRate: 48_000, channels: 2,
              formatParameters: "\(opusPayloadType)/\(opusPayloadType)")
    }

    /// True for the formats that wrap or repeat another (RTX, RED): never a section's media codec.
    public var isWrapper: Bool { isRTX || isRED }

    /// The `a=rtpmap` value (`111 opus/48000/2`).
    var rtpmapValue: String {
        var text = "\(payloadType) \(name)/\(clockRate)"
        if let channels { text += "/\(channels)" }
        return text
    }
}

/// One `a=rtcp-fb` capability (RFC 4585 §4.2): `nack`, `nack pli`, `ccm fir`, `goog-remb`, `transport-cc`.
public struct RTCPFeedback: Hashable, Sendable, CustomStringConvertible {
    public var type: String
    public var parameter: String?

    public init(type: String, parameter: String? = nil) {
        self.type = type
        self.parameter = parameter
    }

    /// What browsers offer for video: REMB, transport-cc, FIR, NACK and PLI.
    public static let videoDefaults = [
        RTCPFeedback(type: "goog-remb"), RTCPFeedback(type: "transport-cc"), RTCPFeedback(type: "ccm", parameter: "fir"),
        RTCPFeedback(type: "nack"), RTCPFeedback(type: "nack", parameter: "pli"),
    ]

    public var description: String { parameter.map { "\(type) \($0)" } ?? type }
}

extension Substring {
    /// Without leading and trailing spaces or tabs.
    var trimmingSpaces: Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }
}
