import RTCWire

/// The header extension ids the SFU reads or writes, resolved once from `RTPParameters` so the
/// packet path compares small integers instead of URIs. 0 means "not negotiated" (RFC 8285 §4.1
/// reserves id 0 for padding, so it never names an element).
struct HeaderExtensionIDs: Hashable, Sendable {
    var mid: UInt8 = 0
    var rid: UInt8 = 0
    var repairedRid: UInt8 = 0
    var audioLevel: UInt8 = 0
    var absSendTime: UInt8 = 0
    var transportWideCC: UInt8 = 0
    var absCaptureTime: UInt8 = 0
    var dependencyDescriptor: UInt8 = 0

    init() {}

    init(_ extensions: [RTPHeaderExtensionParameters]) {
        for ext in extensions where ext.id != 0 {
            switch ext.uri {
            case RTPHeaderExtensionURI.mid: mid = ext.id
            case RTPHeaderExtensionURI.rid: rid = ext.id
            case RTPHeaderExtensionURI.repairedRid: repairedRid = ext.id
            case RTPHeaderExtensionURI.audioLevel: audioLevel = ext.id
            case RTPHeaderExtensionURI.absSendTime: absSendTime = ext.id
            case RTPHeaderExtensionURI.transportWideCC: transportWideCC = ext.id
            case RTPHeaderExtensionURI.absCaptureTime: absCaptureTime = ext.id
            case RTPHeaderExtensionURI.dependencyDescriptor: dependencyDescriptor = ext.id
            default: continue
            }
        }
    }

    /// True when every id the SFU writes fits the one-byte form (RFC 8285 §4.2: ids 1–14).
    var fitOneByteForm: Bool {
        mid <= 14 && audioLevel <= 14 && absSendTime <= 14 && transportWideCC <= 14 && absCaptureTime <= 14
            && dependencyDescriptor <= 14
    }
}

/// The RTCP feedback a peer negotiated for the forwarded codec.
struct FeedbackSupport: Hashable, Sendable {
    var nack = false
    var pli = false
    var fir = false
    var remb = false
    var transportCC = false

    init() {}

    init(_ codec: RTPCodecParameters) {
        nack = codec.supports(.nack)
        pli = codec.supports(.pli)
        fir = codec.supports(.fir)
        remb = codec.supports(.remb)
        transportCC = codec.supports(.transportCC)
    }
}
