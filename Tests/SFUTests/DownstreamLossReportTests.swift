import RTCWire
import Testing
@testable import SFU

/// The loss an audio publisher hears of (docs/network.md, "Opus in-band FEC tuned to the loss
/// subscribers see"): the receiver report the SFU sends a publisher about an audio stream carries,
/// as its fraction lost, the worst loss the stream's subscribers reported in the last 10 s when
/// that is larger than the uplink's own; video and the cumulative counts stay the uplink's.
struct DownstreamLossReportTests {
    typealias H = SFUHarness
    static let second: Int64 = 1_000_000

    static func report(loss: UInt8, at time: Int64) -> SubscriberReport {
        var report = SubscriberReport()
        report.loss = loss
        report.receivedAt = time
        return report
    }

    /// The rule alone: the largest loss among reports no older than 10 s; none, or all stale: 0.
    @Test func theWorstRecentSubscriberReportCounts() {
        let now: Int64 = 100 * Self.second
        #expect(Producer.worstLoss([], now: now) == 0)
        #expect(Producer.worstLoss([SubscriberReport()], now: now) == 0)   // never reported
        let reports = [Self.report(loss: 26, at: now - Self.second), Self.report(loss: 77, at: now - 9 * Self.second),
                       Self.report(loss: 200, at: now - 11 * Self.second)]
        #expect(Producer.worstLoss(reports, now: now) == 77)
        #expect(Producer.worstLoss(reports, now: now + 2 * Self.second) == 26)   // 77 is now 11 s old
        #expect(Producer.worstLoss(reports, now: now + 10 * Self.second) == 0)
        // Exactly 10 s old still counts.
        #expect(Producer.worstLoss([Self.report(loss: 5, at: now - 10 * Self.second)], now: now) == 5)
    }

    /// Alice publishes Opus (0x1111) and VP8 (0x2222); bob and carol subscribe to the audio, bob
    /// to the video too. The reports the SFU sends alice follow what the subscribers report.
    @Test func anAudioPublishersReportCarriesItsSubscribersWorstLoss() throws {
        let h = try SFUHarness()
        try h.core.produce("mic", transport: "alice/pub", kind: .audio, parameters: H.audioProducer(), muted: false)
        let video = RTPParameters(mid: "1", codecs: [.vp8(payloadType: 96)], headerExtensions: H.publisherExtensions,
                                  encodings: [RTPEncodingParameters(ssrc: 0x2222)])
        try h.core.produce("cam", transport: "alice/pub", kind: .video, parameters: video, muted: false)
        _ = try h.core.consume("bob/mic", transport: "bob/sub", producer: "mic", parameters: H.subscriberParameters(kind: .audio),
                               preferredLayer: nil, paused: false, now: h.now)
        _ = try h.core.consume("bob/cam", transport: "bob/sub", producer: "cam",
                               parameters: H.subscriberParameters(kind: .video, mid: "s4", ssrc: 0xBBBB), preferredLayer: nil,
                               paused: false, now: h.now)
        let carol = RecordingSink()
        let carolTransport = try h.core.createTransport("carol/sub", router: "room", participant: "carol", sink: carol, now: h.now)
        carolTransport.state = .connected
        _ = try h.core.consume("carol/mic", transport: "carol/sub", producer: "mic",
                               parameters: H.subscriberParameters(kind: .audio, ssrc: 0xCCCC), preferredLayer: nil, paused: false, now: h.now)

        var seq: UInt16 = 1
        func publishSecond() {
            for _ in 0 ..< 50 {
                h.publish(PacketFactory.rtp(pt: 111, seq: seq, ts: UInt32(seq) * 960, ssrc: 0x1111, extensions: [(H.pubMid, Array("0".utf8))],
                                            payload: [0xF8, 1]))
                h.publish(PacketFactory.rtp(pt: 96, seq: seq, ts: UInt32(seq) * 3000, ssrc: 0x2222, extensions: [(H.pubMid, Array("1".utf8))],
                                            payload: [0x10, 0, 0, 0]))
                seq &+= 1
                h.advance(ms: 20)
            }
        }
        func report(_ transport: MediaTransport, ssrc: UInt32, fractionLost: UInt8) {
            RTCPCompound.serialize([.receiverReport(ReceiverReport(ssrc: 0xB, reports: [ReceptionReport(ssrc: ssrc, fractionLost: fractionLost)]))])
                .withUnsafeBytes { transport.receiveRTCP($0, now: h.now) }
        }
        /// The fraction lost of the latest RR blocks the SFU sent alice, by SSRC, after a tick.
        func aliceHears() -> [UInt32: UInt8] {
            h.publisherSink.clear()
            h.tick()
            var blocks: [UInt32: UInt8] = [:]
            for packet in h.publisherSink.rtcpPackets {
                if case .receiverReport(let rr) = packet { for block in rr.reports { blocks[block.ssrc] = block.fractionLost } }
            }
            return blocks
        }

        publishSecond()
        #expect(aliceHears() == [0x1111: 0, 0x2222: 0])
        report(h.subscriber, ssrc: 0xAAAA, fractionLost: 26)   // bob, 10 %
        report(carolTransport, ssrc: 0xCCCC, fractionLost: 77)  // carol, 30 %
        report(h.subscriber, ssrc: 0xBBBB, fractionLost: 128)  // bob's video: not the publisher's business
        publishSecond()
        #expect(aliceHears() == [0x1111: 77, 0x2222: 0])
        // Carol's report ages out after 10 s; bob keeps reporting 10 %.
        for _ in 0 ..< 11 {
            publishSecond()
            report(h.subscriber, ssrc: 0xAAAA, fractionLost: 26)
        }
        let later = aliceHears()
        #expect(later[0x1111] == 26 && later[0x2222] == 0)
        // The uplink's own loss wins when larger: 10 of the next 50 audio packets never arrive.
        for index in 0 ..< 50 {
            if index % 5 != 0 {
                h.publish(PacketFactory.rtp(pt: 111, seq: seq, ts: UInt32(seq) * 960, ssrc: 0x1111, extensions: [(H.pubMid, Array("0".utf8))],
                                            payload: [0xF8, 1]))
            }
            seq &+= 1
            h.advance(ms: 20)
        }
        report(h.subscriber, ssrc: 0xAAAA, fractionLost: 0)
        let uplink = try #require(aliceHears()[0x1111])
        #expect(uplink >= 45 && uplink <= 56, "\(uplink)")   // 20 % of 256 is 51
    }
}
