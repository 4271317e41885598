import RTCWire

/// What the server negotiates: Opus and VP8 without RTX (retransmissions come on the primary
/// SSRC, which the SFU's NACK path handles), and the header extensions the SFU reads.
enum ServerMedia {
    static let audioFeedback = [RTCPFeedback(type: "transport-cc")]
    static let videoFeedback = [RTCPFeedback(type: "nack"), RTCPFeedback(type: "nack", parameter: "pli"),
                                RTCPFeedback(type: "ccm", parameter: "fir"), RTCPFeedback(type: "goog-remb"),
                                RTCPFeedback(type: "transport-cc")]

    static let opus = Codec(payloadType: 111, name: "opus", clockRate: 48_000, channels: 2,
                            formatParameters: "minptime=10;useinbandfec=1", feedback: audioFeedback)
    static let vp8 = Codec(payloadType: 96, name: "VP8", clockRate: 90_000, feedback: videoFeedback)

    /// Accepted from publishers.
    static let capabilities = MediaCapabilities(
        audioCodecs: [opus], videoCodecs: [vp8],
        headerExtensions: [RTPHeaderExtensionURI.audioLevel, RTPHeaderExtensionURI.absSendTime, RTPHeaderExtensionURI.transportWideCC,
                           RTPHeaderExtensionURI.mid, RTPHeaderExtensionURI.rid, RTPHeaderExtensionURI.repairedRid])

    /// Header extensions offered to subscribers, with the ids the server chose.
    static func subscriberExtensions(for kind: MediaKind) -> [ExtMap] {
        var maps = [ExtMap(id: 2, uri: RTPHeaderExtensionURI.absSendTime), ExtMap(id: 3, uri: RTPHeaderExtensionURI.transportWideCC),
                    ExtMap(id: 4, uri: RTPHeaderExtensionURI.mid)]
        if kind == .audio { maps.insert(ExtMap(id: 1, uri: RTPHeaderExtensionURI.audioLevel), at: 0) }
        return maps
    }
}
