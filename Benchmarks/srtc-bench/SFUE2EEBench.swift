// The SFU's cost per forwarded packet with end-to-end encryption on and off (docs/e2ee.md): the
// SFU benchmark's scenario (one publisher → N subscribers through an `SFUWorker` over loopback,
// real ICE, DTLS and SRTP), the publisher sending the same VP8 frames (a 640×360 call: a 25 kB key
// frame, then 3 kB delta frames) packetized by `VP8Packetizer`, once as they are and once
// encrypted first (SFrame, docs/e2ee.md's VP8 layout). The SFU reads the same clear bytes in both
// (payload descriptor, frame tag), so the figures should match. Printed, never asserted.
import RTCMedia
import RTCWire

func runSFUE2EEBenchmarks() {
    let rate = 1000
    print("SFU forwarding with E2EE off and on (1 publisher → N subscribers; 640x360 VP8 frames, a 25 kB key frame then 3 kB "
          + "delta frames, \(rate) pkt/s; SFU I/O thread CPU per forwarded packet, as `srtc-bench sfu`)")
    for subscribers in [8] {
        for e2ee in [false, true] {
            do {
                let source = FramePacketSource(e2ee: e2ee)
                let result = try SFUBench.run(subscribers: subscribers, packetsPerSecond: rate, source: source.next)
                print("  E2EE \(e2ee ? "on " : "off") (\(source.meanPayload) B mean payload)" + result.line.dropFirst(1))
            } catch {
                print("  N=\(subscribers) E2EE \(e2ee ? "on" : "off"): failed: \(error)")
            }
        }
    }
}

/// RTP packets of one VP8 stream made ahead from 2100 frames (a key frame every 60, about 7 s at
/// 1000 pkt/s, more than one run sends; then they repeat), each encrypted end to end before
/// packetizing when `e2ee`.
final class FramePacketSource: @unchecked Sendable {
    private var packets: [[UInt8]] = []
    private var frameEnds: [Int] = []
    private var index = 0, frame = 0, cycle = 0
    private var seq: UInt16 = 1
    private var twcc: UInt16 = 0
    /// Mean RTP payload size, bytes.
    let meanPayload: Int

    init(e2ee: Bool) {
        let baseKey = [UInt8](repeating: 7, count: 16)
        let encryptor = SFrameEncryptor(key: SFrameKey(baseKey: baseKey, keyID: 1, suite: .aes128GCMSHA256))
        var packetizer = VP8Packetizer(initialPictureID: 0)
        var payloadBytes = 0
        for number in 0 ..< 2_100 {
            let key = number % 60 == 0
            var frame = E2EEBench.frame(codec: .vp8, size: key ? 25_000 : 3_000, keyFrame: key)
            // A key frame's start code, 640×360 (RFC 6386 §9.1), which the SFU's key-frame test reads.
            if key { frame.replaceSubrange(3 ..< 10, with: [0x9D, 0x01, 0x2A, 0x80, 0x02, 0x68, 0x01]) }
            if e2ee {
                var encrypted: [UInt8] = []
                frame.withUnsafeBytes { _ = try? E2EEFrame.encrypt($0, codec: .vp8, with: encryptor, appendingTo: &encrypted) }
                frame = encrypted
            }
            for payload in packetizer.packetize(frame) {
                packets.append(payload)
                payloadBytes += payload.count
            }
            frameEnds.append(packets.count)
        }
        meanPayload = payloadBytes / packets.count
    }

    func next() -> [UInt8] {
        let timestamp = UInt32(truncatingIfNeeded: 90_000 + (cycle * frameEnds.count + frame) * 3_000)
        let packet = RTPPacket(marker: frameEnds[frame] == index + 1, payloadType: 96, sequenceNumber: seq, timestamp: timestamp, ssrc: 0x5EED,
                               extensions: [RTPHeaderExtensionElement(id: 4, value: Array("1".utf8)),
                                            RTPHeaderExtensionElement(id: 3, value: [UInt8(twcc >> 8), UInt8(twcc & 0xFF)])],
                               payload: packets[index]).serialize()
        seq &+= 1
        twcc &+= 1
        index += 1
        if index == frameEnds[frame] { frame += 1 }
        if index == packets.count { index = 0; frame = 0; cycle += 1 }
        return packet
    }
}
