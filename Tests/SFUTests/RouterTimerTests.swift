import RTCWire
import Testing
@testable import SFU

/// The router's periodic events from real packet flows: active speakers and quality reports.
struct RouterTimerTests {
    typealias H = SFUHarness

    static func opus(ssrc: UInt32, seq: UInt16, level: UInt8) -> [UInt8] {
        PacketFactory.rtp(pt: 111, seq: seq, ts: UInt32(seq) * 960, ssrc: ssrc,
                          extensions: [(H.pubAudioLevel, [level])], payload: [0xFC, 0, 0])
    }

    @Test func activeSpeakersFollowTheLevelsSentAndEmptyInSilence() throws {
        let h = try SFUHarness()
        let carolSink = RecordingSink()
        let carol = try h.core.createTransport("carol/pub", router: "room", participant: "carol", sink: carolSink, now: h.now)
        carol.state = .connected
        try h.core.produce("mic-a", transport: "alice/pub", kind: .audio, parameters: H.audioProducer(ssrc: 0xA), muted: false)
        try h.core.produce("mic-c", transport: "carol/pub", kind: .audio, parameters: H.audioProducer(ssrc: 0xC), muted: false)
        var seq: UInt16 = 0

        /// 20 ms packets for `ms` with the given -dBov levels (nil: nothing sent, like DTX).
        func talk(alice: UInt8?, carol carolLevel: UInt8?, ms: Int) {
            for _ in 0 ..< ms / 20 {
                seq &+= 1
                if let alice { h.publish(Self.opus(ssrc: 0xA, seq: seq, level: alice)) }
                if let carolLevel { Self.opus(ssrc: 0xC, seq: seq, level: carolLevel).withUnsafeBytes { carol.receiveRTP($0, now: h.now) } }
                h.advance(ms: 20)
                h.tick()
            }
        }

        talk(alice: 20, carol: 127, ms: 1000)
        #expect(h.log.speakerSnapshots.map { $0.map(\.participant) } == [["alice"]])
        talk(alice: 35, carol: 15, ms: 1000)
        #expect(h.log.speakerSnapshots.last?.map(\.participant) == ["carol", "alice"])
        #expect(h.log.speakerSnapshots.last?.map(\.producer) == ["mic-c", "mic-a"])
        let levels = h.log.speakerSnapshots.last!.map(\.level)
        #expect(levels[0] > levels[1])
        talk(alice: nil, carol: 127, ms: 3000)
        #expect(h.log.speakerSnapshots.last == [])
        // Muting removes a speaker at once.
        talk(alice: 20, carol: nil, ms: 1000)
        #expect(h.log.speakerSnapshots.last?.map(\.participant) == ["alice"])
        try h.core.setProducerMuted("mic-a", muted: true, now: h.now)
        talk(alice: 20, carol: nil, ms: 2000)
        #expect(h.log.speakerSnapshots.last == [])
    }

    @Test func qualityReportsMeasureLossAndTheLevelChangesAfterTwoIntervals() throws {
        let h = try SFUHarness()
        try h.core.produce("mic", transport: "alice/pub", kind: .audio, parameters: H.audioProducer(), muted: false)
        _ = try h.core.consume("bob/mic", transport: "bob/sub", producer: "mic",
                               parameters: H.subscriberParameters(kind: .audio), preferredLayer: nil, paused: false, now: h.now)
        var seq: UInt16 = 0
        /// 20 ms packets for `seconds`, every `lossEvery`th lost on the way to the SFU.
        func stream(seconds: Int, lossEvery: Int?) {
            for step in 0 ..< seconds * 50 {
                seq &+= 1
                if lossEvery.map({ step % $0 != 0 }) ?? true { h.publish(Self.opus(ssrc: 0x1111, seq: seq, level: 40)) }
                h.advance(ms: 20)
                h.tick()
            }
        }
        stream(seconds: 5, lossEvery: nil)
        let first = reports(h, "alice")
        try #require(first.count == 1)
        #expect(first[0].upstream.packets == 250)
        #expect(first[0].upstream.lossRate == 0)
        #expect(first[0].level == .excellent)
        // 20 % loss: one interval is not enough to change the level…
        stream(seconds: 5, lossEvery: 5)
        let lossy = reports(h, "alice").last!
        #expect(abs(lossy.upstream.lossRate - 0.2) < 0.01)
        #expect(lossy.level == .excellent)
        #expect(changes(h).isEmpty)
        // …two are.
        stream(seconds: 5, lossEvery: 5)
        #expect(reports(h, "alice").last!.level == .poor)
        #expect(changes(h) == [ParticipantID("alice") : [QualityLevel.poor]])
        // Bob's downstream counts what the SFU sent him.
        let bob = reports(h, "bob").last!
        #expect(bob.downstream.packets == 200)
        #expect(bob.upstream.packets == 0)
    }

    func reports(_ h: SFUHarness, _ participant: ParticipantID) -> [ParticipantQualityReport] {
        h.log.events.compactMap {
            if case .qualityReport(_, let report) = $0, report.participant == participant { return report } else { return nil }
        }
    }

    func changes(_ h: SFUHarness) -> [ParticipantID: [QualityLevel]] {
        var result: [ParticipantID: [QualityLevel]] = [:]
        for event in h.log.events {
            if case .connectionQualityChanged(_, let participant, let level, _) = event { result[participant, default: []].append(level) }
        }
        return result
    }
}
