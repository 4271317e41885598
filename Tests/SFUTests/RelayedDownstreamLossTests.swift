import RTCWire
import Testing
@testable import SFU

/// The worst subscriber loss reaches an audio publisher across a relay too (docs/network.md, "Opus
/// in-band FEC tuned to the loss subscribers see"): a subscriber on another worker or another
/// node consumes the relay's producer there, whose transport's receiver reports carry that
/// subscriber's loss (`Producer.reportBlock`, the same rule as on the channel's router); the
/// channel's relay consumer stores it like any subscriber's report, and the publisher hears the
/// worst of its local subscribers and the relay.
///
/// Alice publishes Opus (0x1111) on the channel's router, where bob subscribes. The relay's
/// consumer (0x5555, `EdgeRelay.parameters`: Opus and RED, one SSRC, no extensions) carries it to
/// a far router, where carol subscribes. Both routers run on one thread with one clock here.
struct RelayedDownstreamLossTests {
    typealias H = SFUHarness

    static let relayParameters = RTPParameters(codecs: [.opus(), .red()], encodings: [RTPEncodingParameters(ssrc: 0x5555)])

    /// A channel's router and a far router joined by a relay whose two transports' packets
    /// `carry` moves across (the carrier: a worker pipe or a node-to-node link).
    final class RelayedCall {
        let h: SFUHarness
        let far: SFUCore
        let farSubscriber: MediaTransport
        let relay: MediaTransport
        let farEnd: MediaTransport
        var carry: () -> Void = {}
        private var seq: UInt16 = 1

        init(relaySink: PacketSink, farSink: PacketSink) throws {
            let h = try SFUHarness()
            let parameters = RelayedDownstreamLossTests.relayParameters
            try h.core.produce("mic", transport: "alice/pub", kind: .audio, parameters: H.audioProducer(), muted: false)
            _ = try h.core.consume("bob/mic", transport: "bob/sub", producer: "mic", parameters: H.subscriberParameters(kind: .audio),
                                   preferredLayer: nil, paused: false, now: h.now)
            let relay = try h.core.createTransport("~relay", router: "room", participant: "~relay", sink: relaySink, now: h.now)
            relay.state = .connected
            relay.dataRelay = true   // as the workers mark a pipe's or uplink's transports
            _ = try h.core.consume("~relay/mic", transport: "~relay", producer: "mic", parameters: parameters,
                                   preferredLayer: nil, paused: false, now: h.now)

            let far = SFUCore(configuration: SFUConfiguration())
            try far.createRouter("room", now: h.now)
            let farEnd = try far.createTransport("~owner", router: "room", participant: "~owner", sink: farSink, now: h.now)
            farEnd.state = .connected
            farEnd.dataRelay = true
            try far.produce("mic", transport: "~owner", kind: .audio, parameters: parameters, muted: false)
            let farSubscriber = try far.createTransport("carol/sub", router: "room", participant: "carol", sink: RecordingSink(), now: h.now)
            farSubscriber.state = .connected
            _ = try far.consume("carol/mic", transport: "carol/sub", producer: "mic",
                                parameters: H.subscriberParameters(kind: .audio, ssrc: 0xCCCC), preferredLayer: nil, paused: false, now: h.now)
            self.h = h
            self.far = far
            self.relay = relay
            self.farEnd = farEnd
            self.farSubscriber = farSubscriber
        }

        /// One second of audio from alice, 20 ms a packet, both routers ticking and the relay
        /// carrying after each step.
        func publishSecond() {
            for _ in 0 ..< 50 {
                h.publish(PacketFactory.rtp(pt: 111, seq: seq, ts: UInt32(seq) * 960, ssrc: 0x1111,
                                            extensions: [(H.pubMid, Array("0".utf8))], payload: [0xF8, 1]))
                seq &+= 1
                h.tick()
                far.drainPacers(now: h.now)
                far.tick(now: h.now)
                carry()
                h.advance(ms: 20)
            }
        }

        /// A receiver report from a subscriber about `ssrc`, into its transport.
        func report(_ transport: MediaTransport, ssrc: UInt32, fractionLost: UInt8) {
            RTCPCompound.serialize([.receiverReport(ReceiverReport(ssrc: 0xB, reports: [ReceptionReport(ssrc: ssrc, fractionLost: fractionLost)]))])
                .withUnsafeBytes { transport.receiveRTCP($0, now: h.now) }
        }

        /// The fraction lost of the last RR block about alice's stream among what the channel's
        /// router sent her since the previous call.
        func aliceHears() -> UInt8? {
            var heard: UInt8?
            for packet in h.publisherSink.rtcpPackets {
                if case .receiverReport(let rr) = packet { for block in rr.reports where block.ssrc == 0x1111 { heard = block.fractionLost } }
            }
            h.publisherSink.clear()
            return heard
        }

        /// Alice's reports follow carol's, on the far router, as they follow bob's.
        func check() {
            publishSecond()
            publishSecond()
            #expect(farSubscriber.consumers.first?.counters.packetsSent ?? 0 >= 90)   // the relay carries
            #expect(aliceHears() == 0)
            report(h.subscriber, ssrc: 0xAAAA, fractionLost: 26)   // bob, 10 %
            report(farSubscriber, ssrc: 0xCCCC, fractionLost: 77)  // carol, 30 %, behind the relay
            // Within a report interval on each router: carol's report in the far router's, then
            // the relay consumer's in alice's.
            for _ in 0 ..< 3 { publishSecond() }
            #expect(aliceHears() == 77)
            #expect(relay.consumers.first?.report.loss == 77)
            // The leg itself loses nothing: its consumer adds no RED for carol's loss.
            #expect(relay.consumers.first?.addsRED == false)
            #expect(relay.consumers.first?.counters.redWrapped == 0)
            // Carol stops reporting: 10 s on, her loss is forgotten on the far router, then here.
            for _ in 0 ..< 12 {
                report(h.subscriber, ssrc: 0xAAAA, fractionLost: 26)
                publishSecond()
            }
            _ = aliceHears()
            publishSecond()
            #expect(aliceHears() == 26)
        }
    }

    /// A subscriber on another media worker: the relay's carrier is a real `WorkerPipe`, its two
    /// rings drained here instead of by the workers' loops.
    @Test func aSubscribersLossOnAnotherWorkerReachesThePublisher() throws {
        let pipe = try WorkerPipe()
        let call = try RelayedCall(relaySink: PipeSink(pipe: pipe, side: .channel), farSink: PipeSink(pipe: pipe, side: .far))
        call.carry = { [unowned call] in
            _ = pipe.ring(to: .far).drain { tag, bytes in
                if tag == PipeSink.rtp {
                    call.farEnd.receiveRTP(UnsafeRawBufferPointer(bytes), now: call.h.now)
                } else {
                    call.farEnd.receiveRTCP(UnsafeRawBufferPointer(bytes), now: call.h.now)
                }
            }
            _ = pipe.ring(to: .channel).drain { _, bytes in call.relay.receiveRTCP(UnsafeRawBufferPointer(bytes), now: call.h.now) }
        }
        call.check()
        #expect(pipe.droppedCount == 0)
    }

    /// A subscriber on another node: the relay's transport on the channel's node and the
    /// relaying node's uplink exchange what SRTP would carry once decrypted (plain RTP and RTCP).
    @Test func aSubscribersLossOnAnotherNodeReachesThePublisher() throws {
        let down = RecordingSink()
        let up = RecordingSink()
        let call = try RelayedCall(relaySink: down, farSink: up)
        call.carry = { [unowned call] in
            for packet in down.rtp { packet.withUnsafeBytes { call.farEnd.receiveRTP($0, now: call.h.now) } }
            for packet in down.rtcp { packet.withUnsafeBytes { call.farEnd.receiveRTCP($0, now: call.h.now) } }
            for packet in up.rtcp { packet.withUnsafeBytes { call.relay.receiveRTCP($0, now: call.h.now) } }
            down.clear()
            up.clear()
        }
        call.check()
    }

    /// A relay leg that loses packets itself still gets RED from its consumer: the uplink drops
    /// every eighth packet (12 %), carol reports none. The leg's loss reaches the consumer as the
    /// far end's cumulative count or as its NACKs, whichever repaired it.
    @Test func aLossyRelayLegGetsRED() throws {
        let down = RecordingSink()
        let up = RecordingSink()
        let call = try RelayedCall(relaySink: down, farSink: up)
        var carried = 0
        call.carry = { [unowned call] in
            for packet in down.rtp {
                carried += 1
                if carried % 8 != 0 { packet.withUnsafeBytes { call.farEnd.receiveRTP($0, now: call.h.now) } }
            }
            for packet in down.rtcp { packet.withUnsafeBytes { call.farEnd.receiveRTCP($0, now: call.h.now) } }
            for packet in up.rtcp { packet.withUnsafeBytes { call.relay.receiveRTCP($0, now: call.h.now) } }
            down.clear()
            up.clear()
        }
        for _ in 0 ..< 4 { call.publishSecond() }
        let consumer = try #require(call.relay.consumers.first)
        #expect(consumer.addsRED)
        #expect(consumer.counters.redWrapped > 0)
    }
}
