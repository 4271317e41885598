import RTCWire

/// What the server negotiates: Opus, VP8, VP9 profile 0, AV1 profile 0 and H.264 (packetization-mode 1, Constrained Baseline, Main or High),
/// and the header extensions the SFU reads. RTX (RFC 4588) only toward subscribers (`rtx(for:)`,
/// `answeredRTX`): a publisher's answer leaves it out, so publishers resend on the primary SSRC,
/// which the SFU's NACK path handles.
enum ServerMedia {
    /// NACK for Opus where the client offers it (the Swift SDK): a lost audio packet resent
    /// within the playout buffer's depth is not concealed (docs/network.md).
    static let audioFeedback = [RTCPFeedback(type: "nack"), RTCPFeedback(type: "transport-cc")]
    static let videoFeedback = [RTCPFeedback(type: "nack"), RTCPFeedback(type: "nack", parameter: "pli"),
                                RTCPFeedback(type: "ccm", parameter: "fir"), RTCPFeedback(type: "goog-remb"),
                                RTCPFeedback(type: "transport-cc")]

    static let opus = Codec(payloadType: 111, name: "opus", clockRate: 48_000, channels: 2,
                            formatParameters: "minptime=10;useinbandfec=1", feedback: audioFeedback)
    /// Redundant audio (RFC 2198) around Opus, in the form Chromium offers (`a=fmtp:63 111/111`):
    /// a publisher that negotiates it sends each packet with the previous one as a redundant
    /// block; the SFU forwards it to subscribers that negotiated it and strips it to the primary
    /// Opus packet for the others (docs/network.md, "RED").
    static let red = Codec.red(payloadType: 63, opusPayloadType: 111)
    static let vp8 = Codec(payloadType: 96, name: "VP8", clockRate: 90_000, feedback: videoFeedback)
    /// VP9 profile 0 (RFC 9628 §6), scalable (SVC) or not: the SFU reads its payload descriptor.
    static let vp9 = Codec(payloadType: 98, name: "VP9", clockRate: 90_000, formatParameters: "profile-id=0", feedback: videoFeedback)
    /// AV1 Main profile (av1-rtp-spec §7.2.1: `profile=0`, or none), scalable with the Dependency
    /// Descriptor (Appendix A) or not; no level or tier is imposed on the publisher.
    static let av1 = Codec(payloadType: 45, name: "AV1", clockRate: 90_000, feedback: videoFeedback)
    static let h264 = h264(.constrainedBaseline, payloadType: 102)
    /// H.264 Main and High (without B-frames: RTP carries no decoding order): an RTMP ingress
    /// passes them through (docs/ingress.md); subscribers are offered the publisher's profile.
    static let h264Main = h264(.main, payloadType: 104)
    static let h264High = h264(.high, payloadType: 106)

    private static func h264(_ profile: H264ProfileLevelID.Profile, payloadType: UInt8) -> Codec {
        var codec = Codec.h264(payloadType: payloadType, profile: profile)
        codec.feedback = videoFeedback
        return codec
    }

    /// The codecs offered to a subscriber of a track published with `codec` (TrackInfo.codec):
    /// for audio Opus, then RED around it (a subscriber that does not know RED keeps Opus alone).
    static func subscriberCodecs(kind: MediaKind, trackCodec: String?, profileLevelID: String? = nil) -> [Codec] {
        kind == .audio ? [opus, red] : [subscriberCodec(kind: kind, trackCodec: trackCodec, profileLevelID: profileLevelID)]
    }

    /// The RTX format (RFC 4588 §8.6) offered with a subscriber's video codec: the payload type
    /// after the codec's (97, 99, 46, 103, 105, 107: each free in a section of one codec).
    static func rtx(for codec: Codec) -> Codec {
        .rtx(payloadType: codec.payloadType &+ 1, associatedPayloadType: codec.payloadType)
    }

    /// The RTX format a subscriber's answered `section` keeps for `codec`, when the consumer uses
    /// it: a video section whose subscription has an RTX SSRC, with transport-cc. A REMB-only
    /// receiver (aiortc) stays on resends and probe padding on the primary SSRC: the NACKs for
    /// a probe's lost padding there are the first sign that the probe overfilled its link
    /// (`REMBProbeEvidence`), and it is measured in the lab that way (docs/network.md, "RTX").
    static func answeredRTX(_ section: MediaDescription, codec: Codec, rtxSSRC: UInt32) -> Codec? {
        guard section.kind == .video, rtxSSRC != 0, codec.feedback.contains(where: { $0.type.lowercased() == "transport-cc" }) else { return nil }
        return section.codecs.first { $0.isRTX && $0.associatedPayloadType == codec.payloadType }
    }

    /// The media codec offered to a subscriber of a track published with `codec` and, for H.264,
    /// `profileLevelID` (TrackInfo's; absent is Constrained Baseline).
    static func subscriberCodec(kind: MediaKind, trackCodec: String?, profileLevelID: String? = nil) -> Codec {
        if kind == .audio { return opus }
        switch trackCodec?.lowercased() {
        case "h264":
            switch profileLevelID.flatMap(H264ProfileLevelID.init)?.profile {
            case .main: return h264Main
            case .high: return h264High
            default: return h264
            }
        case "vp9": return vp9
        case "av1": return av1
        default: return vp8
        }
    }

    /// A publisher gets one video codec in the answer, the one `preference` picks (by default the
    /// first of its offer the SFU forwards), so it cannot switch codecs under its subscribers.
    static func keepOneVideoCodec(_ answer: inout SessionDescription, preference: VideoCodecPreference) {
        for i in answer.media.indices where answer.media[i].kind == .video && !answer.media[i].isRejected {
            guard let chosen = preference.choose(from: answer.media[i].codecs) else { continue }
            answer.media[i].codecs = [chosen]
            answer.media[i].formats = [String(chosen.payloadType)]
        }
    }

    /// A publisher's audio answered with RED first when it offered RED: Chromium sends what the
    /// answer lists first, so RED must come before Opus for it to send redundancy (it offers
    /// Opus first). The Swift SDK sends RED whenever the answer has it.
    static func preferRED(_ answer: inout SessionDescription) {
        for i in answer.media.indices where answer.media[i].kind == .audio && !answer.media[i].isRejected {
            guard let index = answer.media[i].codecs.firstIndex(where: \.isRED), index > 0 else { continue }
            let red = answer.media[i].codecs.remove(at: index)
            answer.media[i].codecs.insert(red, at: 0)
            answer.media[i].formats = answer.media[i].codecs.map { String($0.payloadType) }
        }
    }

    /// Accepted from publishers.
    static let capabilities = MediaCapabilities(
        audioCodecs: [opus, red], videoCodecs: [vp8, vp9, av1, h264, h264Main, h264High],
        headerExtensions: [RTPHeaderExtensionURI.audioLevel, RTPHeaderExtensionURI.absSendTime, RTPHeaderExtensionURI.transportWideCC,
                           RTPHeaderExtensionURI.mid, RTPHeaderExtensionURI.rid, RTPHeaderExtensionURI.repairedRid,
                           RTPHeaderExtensionURI.absCaptureTime, RTPHeaderExtensionURI.dependencyDescriptor])

    /// Header extensions offered to subscribers, with the ids the server chose: for an AV1 track
    /// also the Dependency Descriptor, which carries the frames' layers and references the
    /// receiver assembles them by (its value exceeds 16 bytes with a structure: the offer allows
    /// the two-byte form, `a=extmap-allow-mixed`).
    static func subscriberExtensions(for kind: MediaKind, codec: Codec? = nil) -> [ExtMap] {
        var maps = [ExtMap(id: 2, uri: RTPHeaderExtensionURI.absSendTime), ExtMap(id: 3, uri: RTPHeaderExtensionURI.transportWideCC),
                    ExtMap(id: 4, uri: RTPHeaderExtensionURI.mid), ExtMap(id: 5, uri: RTPHeaderExtensionURI.absCaptureTime)]
        if kind == .audio { maps.insert(ExtMap(id: 1, uri: RTPHeaderExtensionURI.audioLevel), at: 0) }
        if kind == .video, codec?.name.lowercased() == "av1" { maps.append(ExtMap(id: 6, uri: RTPHeaderExtensionURI.dependencyDescriptor)) }
        return maps
    }
}
