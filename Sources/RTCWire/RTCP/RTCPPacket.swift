/// Any one RTCP packet, typed by its packet type and feedback format.
public enum RTCPPacket: RTCPPacketCodable {
    case senderReport(SenderReport)
    case receiverReport(ReceiverReport)
    case sourceDescription(SourceDescription)
    case goodbye(Goodbye)
    case nack(TransportLayerNack)
    case transportCC(TransportLayerCC)
    case pictureLossIndication(PictureLossIndication)
    case fullIntraRequest(FullIntraRequest)
    case remb(ReceiverEstimatedMaxBitrate)
    /// Anything else, kept as bytes.
    case unknown(RTCPRawPacket)

    /// Parses exactly one packet, choosing the type from PT and FMT.
    public init(parsing bytes: UnsafeRawBufferPointer) throws(RTCPError) {
        let header = try RTCPHeader(parsing: bytes)
        switch (header.packetType, header.count) {
        case (RTCPPacketType.senderReport, _): self = .senderReport(try SenderReport(parsing: bytes))
        case (RTCPPacketType.receiverReport, _): self = .receiverReport(try ReceiverReport(parsing: bytes))
        case (RTCPPacketType.sourceDescription, _): self = .sourceDescription(try SourceDescription(parsing: bytes))
        case (RTCPPacketType.goodbye, _): self = .goodbye(try Goodbye(parsing: bytes))
        case (RTCPPacketType.transportFeedback, TransportLayerNack.format):
            self = .nack(try TransportLayerNack(parsing: bytes))
        case (RTCPPacketType.transportFeedback, TransportLayerCC.format):
            self = .transportCC(try TransportLayerCC(parsing: bytes))
        case (RTCPPacketType.payloadFeedback, PictureLossIndication.format):
            self = .pictureLossIndication(try PictureLossIndication(parsing: bytes))
        case (RTCPPacketType.payloadFeedback, FullIntraRequest.format):
            self = .fullIntraRequest(try FullIntraRequest(parsing: bytes))
        case (RTCPPacketType.payloadFeedback, ReceiverEstimatedMaxBitrate.format):
            // Application-layer feedback: REMB is the only kind modelled; others stay raw.
            let (_, body) = try RTCPHeader.open(bytes, packetType: header.packetType, format: header.count)
            if ReceiverEstimatedMaxBitrate.isREMB(body) {
                self = .remb(try ReceiverEstimatedMaxBitrate(parsing: bytes))
            } else {
                self = .unknown(try RTCPRawPacket(parsing: bytes))
            }
        default:
            self = .unknown(try RTCPRawPacket(parsing: bytes))
        }
    }

    /// The packet inside, as its protocol.
    public var packet: any RTCPPacketCodable {
        switch self {
        case .senderReport(let packet): return packet
        case .receiverReport(let packet): return packet
        case .sourceDescription(let packet): return packet
        case .goodbye(let packet): return packet
        case .nack(let packet): return packet
        case .transportCC(let packet): return packet
        case .pictureLossIndication(let packet): return packet
        case .fullIntraRequest(let packet): return packet
        case .remb(let packet): return packet
        case .unknown(let packet): return packet
        }
    }

    public var serializedSize: Int { packet.serializedSize }

    @discardableResult
    public func serialize(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        packet.serialize(into: buffer)
    }
}
