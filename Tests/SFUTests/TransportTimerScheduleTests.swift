import RTCWire
import Testing
@testable import SFU

/// The router ticks only the transports whose timers have work (`MediaTransport.nextTick`): a
/// subscriber sleeps between its reports and layer allocations, and still sends every report;
/// whatever gives it work sooner wakes it.
struct TransportTimerScheduleTests {
    typealias H = SFUHarness

    static func opus(seq: UInt16) -> [UInt8] {
        PacketFactory.rtp(pt: 111, seq: seq, ts: UInt32(seq) * 960, ssrc: 0x1111,
                          extensions: [(H.pubAudioLevel, [40])], payload: [0xFC, 0, 0])
    }

    @Test func aSubscriberSleepsBetweenItsTimersAndStillSendsASenderReportEverySecond() throws {
        let h = try SFUHarness()
        try h.core.produce("mic", transport: "alice/pub", kind: .audio, parameters: H.audioProducer(), muted: false)
        _ = try h.core.consume("bob/mic", transport: "bob/sub", producer: "mic",
                               parameters: H.subscriberParameters(kind: .audio), preferredLayer: nil, paused: false, now: h.now)
        var subscriberRuns = 0
        var previous = h.subscriber.nextTick
        for step in 1 ... 150 {  // 3 s of 20 ms packets and ticks
            h.publish(Self.opus(seq: UInt16(step)))
            h.advance(ms: 20)
            h.tick()
            // The publisher looks on every tick; the subscriber only when its deadline came.
            #expect(h.publisher.nextTick == .min)
            #expect(h.subscriber.nextTick > h.now)
            if h.subscriber.nextTick != previous { subscriberRuns += 1 }
            previous = h.subscriber.nextTick
        }
        let reports = h.subscriberSink.rtcpPackets.filter { if case .senderReport = $0 { true } else { false } }
        #expect(reports.count == 3)  // at 20 ms, 1 020 ms and 2 020 ms, as when every tick looked
        // Its timers ran at its reports and its 500 ms allocations (20, 520, 1 020 … 2 520 ms):
        // 6 times in 150 ticks.
        #expect(subscriberRuns == 6)
    }

    @Test func aControlCallOrAStateChangeWakesASleepingSubscriber() throws {
        let h = try SFUHarness()
        try h.core.produce("cam", transport: "alice/pub", kind: .video, parameters: H.simulcastProducer(), muted: false)
        _ = try h.core.consume("bob/cam", transport: "bob/sub", producer: "cam", parameters: H.subscriberParameters(kind: .video),
                               preferredLayer: "camera_big", paused: false, now: h.now)
        h.advance(ms: 20)
        h.tick()
        #expect(h.subscriber.nextTick > h.now)
        try h.core.setPreferredLayer("bob/cam", layer: "camera_small", now: h.now)
        #expect(h.subscriber.nextTick == .min)
        h.tick()
        #expect(h.subscriber.nextTick > h.now)
        try h.core.setConsumerPaused("bob/cam", paused: true, now: h.now)
        #expect(h.subscriber.nextTick == .min)
        h.tick()
        h.subscriber.state = .checking
        #expect(h.subscriber.nextTick == .min)
        h.tick()
        #expect(h.subscriber.nextTick == .max)  // not connected: nothing until the state changes
        h.subscriber.state = .connected
        #expect(h.subscriber.nextTick == .min)
    }

    /// A simulcast switch waiting for its key frame re-asks every second, though the subscriber
    /// sleeps between its own timers: the re-ask is one of its deadlines.
    @Test func aSwitchWaitingForItsKeyFrameIsReaskedEverySecond() throws {
        let h = try SFUHarness()
        try h.core.produce("cam", transport: "alice/pub", kind: .video, parameters: H.simulcastProducer(), muted: false)
        _ = try h.core.consume("bob/cam", transport: "bob/sub", producer: "cam", parameters: H.subscriberParameters(kind: .video),
                               preferredLayer: "camera_big", paused: false, now: h.now)
        var big = LayerSource(rid: "h", ssrc: 0x10, seq: 300, ts: 100_000, picture: 1000)
        var asks: [Int64] = []
        let start = h.now
        for _ in 0 ..< 175 {  // 3.5 s: the big layer sends delta frames only
            for p in big.frame() { h.publish(p) }
            h.publisherSink.clear()
            h.advance(ms: 20)
            h.tick()
            let plis = h.publisherSink.rtcpPackets.filter {
                $0 == .pictureLossIndication(PictureLossIndication(senderSSRC: h.publisher.rtcpSSRC, mediaSSRC: 0x10))
            }
            if !plis.isEmpty { asks.append((h.now - start) / 1000) }
        }
        // The first ask went out once the stream's SSRC was known (the first tick); the switch
        // re-asks a second after the subscription asked, and every second since.
        #expect(asks == [20, 1000, 2000, 3000])
        #expect(h.subscriberSink.rtp.isEmpty)
    }
}
