import Foundation
import RTCMedia
import RTCTransport
import RTCWire
import Testing
@testable import SRTCCore
import TestRandom

/// Outside bytes the SDK reads — the server's SDP, RTP from the subscribe transport, RTCP
/// feedback — never crash it: garbage is refused with an error or ignored.
@Suite struct RobustnessTests {
    let engine = SRTCEngine(independent: .init(delegateQueue: DispatchQueue(label: "robust"), logLevel: .off))

    @Test(arguments: [1, 2, 3])
    func truncatedAndMangledServerSDPIsRefusedOrRead(seed: UInt64) {
        var rng = SeededRandom(seed: seed)
        let fixture = Array(SDPNegotiationTests.serverOffer.utf8)
        let ice = ICECredentials.random(), fingerprint = DTLSFingerprint(algorithm: "sha-256", bytes: Array(repeating: 1, count: 32))
        for _ in 0..<300 {
            var bytes = Array(fixture.prefix(Int.random(in: 0...fixture.count, using: &rng)))
            for _ in 0..<Int.random(in: 0...8, using: &rng) where !bytes.isEmpty {
                bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            }
            let text = String(decoding: bytes, as: UTF8.self)
            // Either outcome is fine; what matters is a value or an SRTCError, never a trap.
            _ = try? SDPNegotiation.describe(text)
            _ = try? SDPNegotiation.subscribeAnswer(to: text, ice: ice, fingerprint: fingerprint, sessionID: "1")
        }
    }

    @Test(arguments: [7, 8])
    func randomRTPPayloadsDoNotDisturbTheReceivers(seed: UInt64) async throws {
        var rng = SeededRandom(seed: seed)
        let video = RemoteVideoTrack(info: TrackInfo(id: "v", uid: "u", kind: .video, desc: "canvas"), context: engine.context, receiveTimeout: 3)
        let audio = RemoteAudioTrack(info: TrackInfo(id: "a", uid: "u", kind: .audio, desc: "mic"), context: engine.context)
        let videoReceiver = VideoReceiver(mid: "0", ssrc: 1, track: video, logger: engine.context.logger)
        let audioReceiver = AudioReceiver(mid: "1", ssrc: 2, audioLevelID: 1, track: audio, context: engine.context)
        var sequence = UInt16.random(in: 0...UInt16.max, using: &rng)
        var bytesSent = 0
        for i in 0..<2_000 {
            // Mostly in-order packets, sometimes far jumps; payloads of random length and content.
            sequence &+= Int.random(in: 0..<10, using: &rng) == 0 ? UInt16.random(in: 0...UInt16.max, using: &rng) : 1
            let payload = (0..<Int.random(in: 0...40, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            var packet = RTPPacket(marker: Bool.random(using: &rng), payloadType: 96, sequenceNumber: sequence,
                                   timestamp: UInt32(i / 3) * 3_000, ssrc: 1, payload: payload)
            if Bool.random(using: &rng) { packet.setExtension(id: 1, value: [UInt8.random(in: 0...255, using: &rng)]) }
            let bytes = packet.serialize()
            bytes.withUnsafeBytes { raw in
                guard let view = try? RTPPacketView(raw) else { return }
                bytesSent += raw.count
                _ = videoReceiver.receive(view, nowUs: Int64(i) * 10_000)
                audioReceiver.receive(view, nowUs: Int64(i) * 10_000)
            }
        }
        await videoReceiver.decodesFinished()
        // Every packet is counted in bytes; far jumps are not packets of the stream (RFC 3550 §A.1).
        #expect(videoReceiver.statistics.bytesReceived == UInt64(bytesSent) && audioReceiver.statistics.bytesReceived == UInt64(bytesSent))
        #expect(videoReceiver.statistics.packetsReceived > 0 && videoReceiver.statistics.packetsReceived < 2_000)
    }

    @Test(arguments: [11, 12])
    func randomRTCPFeedbackIsIgnoredOrActedOn(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        let session = PublishSession(certificate: try DTLSCertificate(), bindAddress: "127.0.0.1", logger: engine.context.logger)
        let track = engine.createLocalCustomVideoTrack(desc: "camera_big")
        let section = session.add(track)
        let ssrcs = section.ssrcs
        let valid = RTCPCompound.serialize([.nack(TransportLayerNack(senderSSRC: 1, mediaSSRC: ssrcs[1], lost: [5, 6, 9])),
                                            .pictureLossIndication(PictureLossIndication(senderSSRC: 1, mediaSSRC: ssrcs[0]))])
        let work = valid.withUnsafeBytes { session.handleFeedback($0) }
        #expect(work.count == 1 && work[0].0.ssrc == ssrcs[1] && work[0].1 == [5, 6, 9])
        for _ in 0..<2_000 {
            var bytes = Array(valid.prefix(Int.random(in: 0...valid.count, using: &rng)))
            for _ in 0..<Int.random(in: 0...4, using: &rng) where !bytes.isEmpty {
                bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            }
            _ = bytes.withUnsafeBytes { session.handleFeedback($0) }
        }
    }
}
