import Testing
@testable import RTCMedia

/// One RTP payload of a codec test's packetized frames, with its frame's test-pattern number.
struct PacketizedPayload {
    var payload: [UInt8]
    var sequence: UInt16
    var timestamp: UInt32
    var marker: Bool
    var number: Int
}

/// The fixture of the jitter buffer's codec tests (VP9, H.264, AV1): test-pattern frames
/// `0..<count` at 320×240 encoded by `encode` (a key frame forced at `keyAt`), cut into payloads by
/// `packetize`, and numbered from `firstSequence` on (so a test can cross the wrap), the marker on
/// each frame's last payload.
func packetizedFrames(count: Int, keyAt: Int?, firstSequence: UInt16,
                      encode: (VideoFrame, _ forceKeyFrame: Bool) throws -> EncodedVideoFrame?,
                      packetize: (EncodedVideoFrame) throws -> [[UInt8]]) throws -> (packets: [PacketizedPayload], encoded: [EncodedVideoFrame]) {
    let pattern = try TestPatternGenerator(width: 320, height: 240)
    var packets: [PacketizedPayload] = []
    var encoded: [EncodedVideoFrame] = []
    var sequence = firstSequence
    for number in 0..<count {
        let frame = try #require(try encode(pattern.videoFrame(number: number), number == keyAt))
        encoded.append(frame)
        let payloads = try packetize(frame)
        for (index, payload) in payloads.enumerated() {
            packets.append(PacketizedPayload(payload: payload, sequence: sequence, timestamp: frame.rtpTimestamp,
                                             marker: index == payloads.count - 1, number: number))
            sequence &+= 1
        }
    }
    return (packets, encoded)
}
