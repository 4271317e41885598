// The negotiated RTP parameters of one producer or consumer, as plain values. The server turns
// SDP into these (one m-section each); the SFU never sees SDP.
import RTCWire

// MARK: - Types

// `MediaKind` (audio/video) and `RTCPFeedback` are RTCWire's SDP types, shared with the
// server's negotiation code so nothing needs converting.

extension RTCPFeedback {
    /// Generic NACK (RFC 4585 §6.2.1).
    static let nack = RTCPFeedback(type: "nack")
    /// Picture loss indication (RFC 4585 §6.3.1).
    static let pli = RTCPFeedback(type: "nack", parameter: "pli")
    /// Full intra request (RFC 5104 §4.3.1).
    static let fir = RTCPFeedback(type: "ccm", parameter: "fir")
    /// Receiver estimated maximum bitrate (draft-alvestrand-rmcat-remb).
    static let remb = RTCPFeedback(type: "goog-remb")
    /// Transport-wide congestion control feedback (draft-holmer-rmcat-transport-wide-cc-extensions).
    static let transportCC = RTCPFeedback(type: "transport-cc")

    /// Same mechanism; an empty parameter equals none.
    func matches(_ other: RTCPFeedback) -> Bool {
        type.lowercased() == other.type.lowercased()
            && (parameter ?? "").lowercased() == (other.parameter ?? "").lowercased()
    }
}

/// One negotiated codec (`a=rtpmap` + `a=fmtp` + `a=rtcp-fb`).
public struct RTPCodecParameters: Hashable, Sendable {
    /// Encoding name as in `a=rtpmap`: `opus`, `VP8` (compared case-insensitively).
    public var name: String
    public var payloadType: UInt8
    public var clockRate: UInt32
    /// Audio channels (2 for Opus in SDP); 1 for video.
    public var channels: Int
    /// `a=fmtp` parameters.
    public var fmtp: [String: String]
    public var rtcpFeedback: [RTCPFeedback]

    public init(name: String, payloadType: UInt8, clockRate: UInt32, channels: Int = 1,
                fmtp: [String: String] = [:], rtcpFeedback: [RTCPFeedback] = []) {
        self.name = name
        self.payloadType = payloadType
        self.clockRate = clockRate
        self.channels = channels
        self.fmtp = fmtp
        self.rtcpFeedback = rtcpFeedback
    }

    /// Opus at 48 kHz, stereo in SDP (RFC 7587 §7), with transport-cc.
    public static func opus(payloadType: UInt8 = 111) -> RTPCodecParameters {
        RTPCodecParameters(name: "opus", payloadType: payloadType, clockRate: 48_000, channels: 2,
                           fmtp: ["minptime": "10", "useinbandfec": "1"], rtcpFeedback: [.transportCC])
    }

    /// VP8 at 90 kHz (RFC 7741 §6.1) with NACK, PLI, FIR, REMB and transport-cc.
    public static func vp8(payloadType: UInt8 = 96) -> RTPCodecParameters {
        RTPCodecParameters(name: "VP8", payloadType: payloadType, clockRate: 90_000,
                           rtcpFeedback: [.nack, .pli, .fir, .remb, .transportCC])
    }

    /// VP9 profile 0 at 90 kHz (RFC 9628 §6) with the same feedback as VP8.
    public static func vp9(payloadType: UInt8 = 98) -> RTPCodecParameters {
        RTPCodecParameters(name: "VP9", payloadType: payloadType, clockRate: 90_000, fmtp: ["profile-id": "0"],
                           rtcpFeedback: [.nack, .pli, .fir, .remb, .transportCC])
    }

    /// H.264 at 90 kHz in packetization-mode 1 (RFC 6184 §8.1) with the same feedback as VP8.
    /// - Parameter profileLevelID: 42e01f is Constrained Baseline level 3.1, which every WebRTC peer decodes.
    public static func h264(payloadType: UInt8 = 102, profileLevelID: String = "42e01f") -> RTPCodecParameters {
        RTPCodecParameters(name: "H264", payloadType: payloadType, clockRate: 90_000,
                           fmtp: ["level-asymmetry-allowed": "1", "packetization-mode": "1", "profile-level-id": profileLevelID],
                           rtcpFeedback: [.nack, .pli, .fir, .remb, .transportCC])
    }

    /// Whether `rtcpFeedback` lists `feedback`.
    public func supports(_ feedback: RTCPFeedback) -> Bool { rtcpFeedback.contains { $0.matches(feedback) } }

    /// Same codec (name and clock rate), whatever the payload type.
    public func isSameCodec(as other: RTPCodecParameters) -> Bool {
        name.lowercased() == other.name.lowercased() && clockRate == other.clockRate
    }

    /// True for redundant audio data, `audio/red` (RFC 2198): it wraps the section's media codec.
    public var isRED: Bool { name.lowercased() == "red" }

    /// True for a retransmission format, `rtx` (RFC 4588 §8): it repairs the codec whose payload
    /// type its `apt` names.
    public var isRTX: Bool { name.lowercased() == "rtx" }

    /// For `rtx`: the payload type it repairs (`apt=`, RFC 4588 §8.6).
    public var associatedPayloadType: UInt8? { fmtp["apt"].flatMap { UInt8($0) } }

    /// `rtx` (RFC 4588 §8.6) for the codec with `associatedPayloadType`.
    public static func rtx(payloadType: UInt8, associatedPayloadType: UInt8, clockRate: UInt32 = 90_000) -> RTPCodecParameters {
        RTPCodecParameters(name: "rtx", payloadType: payloadType, clockRate: clockRate, fmtp: ["apt": String(associatedPayloadType)])
    }

    /// `audio/red` at 48 kHz (RFC 2198), carrying the codec of the same parameters (`codecs`).
    public static func red(payloadType: UInt8 = 63) -> RTPCodecParameters {
        RTPCodecParameters(name: "red", payloadType: payloadType, clockRate: 48_000, channels: 2)
    }

    /// True for VP8.
    var isVP8: Bool { name.lowercased() == "vp8" }
    /// True for VP9.
    var isVP9: Bool { name.lowercased() == "vp9" }
    /// True for AV1.
    var isAV1: Bool { name.lowercased() == "av1" }
    /// True for H.264.
    var isH264: Bool { name.lowercased() == "h264" }
}

/// One negotiated header extension (`a=extmap:<id> <uri>`, RFC 8285 §5).
public struct RTPHeaderExtensionParameters: Hashable, Sendable {
    public var uri: String
    /// 1–14 for the one-byte form, up to 255 for the two-byte form.
    public var id: UInt8

    public init(uri: String, id: UInt8) {
        self.uri = uri
        self.id = id
    }
}

/// One RTP stream of a producer: a single stream, or one simulcast layer.
public struct RTPEncodingParameters: Hashable, Sendable {
    /// The SSRC when signaled (`a=ssrc`); nil when the stream is found by `rid`.
    public var ssrc: UInt32?
    /// The RTP stream id (RFC 8851 `a=rid`, RFC 8852 header extension).
    public var rid: String?
    /// The layer's description (`camera_big`, `camera_small`), used by `setPreferredLayer`.
    public var layer: String?
    /// The layer's expected maximum bitrate, bits per second, when known.
    public var maxBitrate: Int?
    /// Consumer: the SSRC of its retransmission stream (RFC 4588 §4, paired with `ssrc` by
    /// `a=ssrc-group:FID`, RFC 5576 §4.2) when the subscriber negotiated `rtx` for the codec;
    /// nil: resends go on `ssrc` with their original numbers.
    public var rtxSSRC: UInt32?

    public init(ssrc: UInt32? = nil, rid: String? = nil, layer: String? = nil, maxBitrate: Int? = nil, rtxSSRC: UInt32? = nil) {
        self.ssrc = ssrc
        self.rid = rid
        self.layer = layer
        self.maxBitrate = maxBitrate
        self.rtxSSRC = rtxSSRC
    }
}

/// The RTP parameters of one m-section: what a producer sends or what a consumer's subscriber receives.
public struct RTPParameters: Hashable, Sendable {
    /// The m-section's `a=mid` (BUNDLE, RFC 8843).
    public var mid: String?
    /// Media codecs, preferred first; the first that is neither RED nor RTX is the one forwarded.
    /// RED (`isRED`) may be listed, in any place, when negotiated around it; a consumer's RTX
    /// (`isRTX`, its `apt` the forwarded codec's payload type) with `encodings[0].rtxSSRC`.
    /// A producer's RTX is not used.
    public var codecs: [RTPCodecParameters]
    public var headerExtensions: [RTPHeaderExtensionParameters]
    /// Producer: its streams, **best first** (as the protocol's `layers`); one for a plain track.
    /// Consumer: one encoding whose `ssrc` the SFU uses (or picks when nil).
    public var encodings: [RTPEncodingParameters]
    /// RTCP CNAME of the sender (`a=ssrc:… cname:` / `a=msid`), informational.
    public var cname: String?
    /// Producer of one scalable (SVC) stream: its spatial layers' descriptions, **best first**
    /// (the publish request's `layers` of a track without simulcast); empty otherwise.
    public var spatialLayers: [String] = []

    public init(mid: String? = nil, codecs: [RTPCodecParameters],
                headerExtensions: [RTPHeaderExtensionParameters] = [],
                encodings: [RTPEncodingParameters] = [RTPEncodingParameters()], cname: String? = nil) {
        self.mid = mid
        self.codecs = codecs
        self.headerExtensions = headerExtensions
        self.encodings = encodings
        self.cname = cname
    }

    /// The payload type of RED (RFC 2198) around the media codec, when negotiated.
    public var redPayloadType: UInt8? { codecs.first(where: \.isRED)?.payloadType }

    /// The payload type of RTX (RFC 4588) for the codec numbered `payloadType`, when negotiated.
    public func rtxPayloadType(for payloadType: UInt8) -> UInt8? {
        codecs.first { $0.isRTX && $0.associatedPayloadType == payloadType }?.payloadType
    }

    /// The id negotiated for `uri`, if any.
    public func extensionID(_ uri: String) -> UInt8? {
        headerExtensions.first { $0.uri == uri }?.id
    }
}
