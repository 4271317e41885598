import RTCWire
import SFU
import SRTCTestSupport

extension LoopbackClient: MediaTestPath {
    func send(rtp packets: [[UInt8]]) { send(packets) }
    var receivedRTCP: [RTCPPacket] { log.withLock { $0.rtcp } }
}

/// The producer parameters matching what a `MediaTestPublisher` sends, for creating its producers
/// on the SFU directly (no SDP in these tests).
extension MediaTestPublisher {
    /// The header extensions the publisher writes, with its ids.
    static let sfuExtensions = [
        RTPHeaderExtensionParameters(uri: RTPHeaderExtensionURI.audioLevel, id: MediaTestClient.audioLevelID),
        RTPHeaderExtensionParameters(uri: RTPHeaderExtensionURI.transportWideCC, id: MediaTestClient.twccID),
        RTPHeaderExtensionParameters(uri: RTPHeaderExtensionURI.mid, id: MediaTestClient.midID),
        RTPHeaderExtensionParameters(uri: RTPHeaderExtensionURI.rid, id: MediaTestClient.ridID),
    ]

    func audioParameters() -> RTPParameters {
        RTPParameters(mid: "0", codecs: [.opus(payloadType: 111)], headerExtensions: Self.sfuExtensions,
                      encodings: [RTPEncodingParameters(ssrc: audioSSRC)])
    }

    /// Simulcast encodings by rid, best first, named by the layers' descriptions.
    func videoParameters() -> RTPParameters {
        RTPParameters(mid: "1", codecs: [.vp8(payloadType: 96)], headerExtensions: Self.sfuExtensions,
                      encodings: videoLayers.map { RTPEncodingParameters(rid: $0.rid, layer: $0.desc) })
    }
}
