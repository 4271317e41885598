import RTCMedia
import RTCWire

/// What a subscriber could decode from the VP8 packets it received.
struct DecodedFrame: Equatable {
    var width: Int
    var height: Int
    /// The test pattern's frame number, read back from the pixels.
    var number: Int?
    var isKeyFrame: Bool
    var rtpTimestamp: UInt32
}

enum VideoCheck {
    /// Reassembles and decodes packets in arrival order, as a receiver would.
    static func decode(_ packets: [RTPPacket]) throws -> [DecodedFrame] {
        var assembler = VP8FrameAssembler()
        let decoder = try VP8Decoder()
        var frames: [DecodedFrame] = []
        for packet in packets {
            let output = try assembler.push(payload: packet.payload, sequenceNumber: packet.sequenceNumber,
                                            timestamp: packet.timestamp, marker: packet.marker)
            guard let frame = output.frame, let picture = try decoder.decode(frame.data) else { continue }
            frames.append(DecodedFrame(width: picture.buffer.width, height: picture.buffer.height,
                                       number: TestPatternReader.frameNumber(in: picture), isKeyFrame: frame.isKeyFrame,
                                       rtpTimestamp: frame.rtpTimestamp))
        }
        return frames
    }

    /// True when every packet's sequence number follows the previous one.
    static func contiguous(_ packets: [RTPPacket]) -> Bool {
        zip(packets, packets.dropFirst()).allSatisfy { $1.sequenceNumber == $0.sequenceNumber &+ 1 }
    }
}
