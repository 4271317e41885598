import RTCWire
import Testing
@testable import SFU

/// Consumers, producers, producer streams and transports reach their owners through unchecked
/// references (`unowned(unsafe)`, see `Consumer`): that is only safe while no object outlives its
/// owner. Each close path the server uses must free the children together with the owner it
/// closes — and leave everything else forwarding.
struct BackReferenceLifetimeTests {
    typealias H = SFUHarness

    /// Weak references to everything one room's objects are, to see what a close path freed.
    struct Watch {
        weak var transport: MediaTransport?
        weak var producer: Producer?
        weak var stream: ProducerStream?
        weak var consumer: Consumer?
    }

    /// A room with alice publishing audio and simulcast video, bob and carol subscribed to both,
    /// and carol publishing audio that alice and bob consume. No strong references kept.
    static func room() throws -> (SFUCore, RecordingSink, RecordingSink, Int64) {
        let now: Int64 = 1_000_000_000
        let core = SFUCore(configuration: SFUConfiguration())
        let bobSink = RecordingSink(), carolSink = RecordingSink()
        try core.createRouter("room", now: now)
        for (name, sink) in [("alice", RecordingSink()), ("bob", bobSink), ("carol", carolSink)] {
            try core.createTransport(TransportID("\(name)/pub"), router: "room", participant: ParticipantID(name), sink: sink, now: now).state = .connected
            try core.createTransport(TransportID("\(name)/sub"), router: "room", participant: ParticipantID(name), sink: sink, now: now).state = .connected
        }
        try core.produce("alice-mic", transport: "alice/pub", kind: .audio, parameters: H.audioProducer(ssrc: 0x1111), muted: false)
        try core.produce("alice-cam", transport: "alice/pub", kind: .video, parameters: H.simulcastProducer(), muted: false)
        var carolMic = H.audioProducer(ssrc: 0x3333)
        carolMic.mid = "7"
        try core.produce("carol-mic", transport: "carol/pub", kind: .audio, parameters: carolMic, muted: false)
        for (subscriber, producer, ssrc) in [("bob", "alice-mic", 0xB001), ("bob", "alice-cam", 0xB002), ("carol", "alice-mic", 0xC001),
                                             ("carol", "alice-cam", 0xC002), ("alice", "carol-mic", 0xA001), ("bob", "carol-mic", 0xB003)] {
            let kind: MediaKind = producer.hasSuffix("cam") ? .video : .audio
            _ = try core.consume(ConsumerID("\(subscriber)/\(producer)"), transport: TransportID("\(subscriber)/sub"),
                                 producer: ProducerID(producer), parameters: H.subscriberParameters(kind: kind, ssrc: UInt32(ssrc)),
                                 preferredLayer: nil, paused: false, now: now)
        }
        return (core, bobSink, carolSink, now)
    }

    static func watch(_ core: SFUCore, transport: TransportID? = nil, producer: ProducerID? = nil, consumer: ConsumerID? = nil) -> Watch {
        var watch = Watch()
        watch.transport = transport.flatMap { core.transports[$0] }
        watch.producer = producer.flatMap { core.producers[$0] }
        watch.stream = watch.producer?.streams.last
        watch.consumer = consumer.flatMap { core.consumers[$0] }
        return watch
    }

    /// Carol's microphone packet, to see who still receives it.
    static func carolSpeaks(_ core: SFUCore, seq: UInt16, now: Int64) {
        let packet = PacketFactory.rtp(pt: 111, seq: seq, ts: UInt32(seq) * 960, ssrc: 0x3333,
                                       extensions: [(H.pubMid, Array("7".utf8))], payload: [0xFC, 1])
        packet.withUnsafeBytes { core.transports["carol/pub"]?.receiveRTP($0, now: now) }
    }

    /// Leaving, a kick, a participant dropped after its reconnect grace: the server closes the
    /// transports; their producers, the consumers of those producers on other transports, and the
    /// transports' own consumers all go with them.
    @Test func closingAPublisherTransportFreesItsProducersAndTheirConsumersEverywhere() throws {
        let (core, bobSink, _, now) = try Self.room()
        let alice = Self.watch(core, transport: "alice/pub", producer: "alice-cam", consumer: "bob/alice-cam")
        let bobOfAliceMic = Self.watch(core, producer: "alice-mic", consumer: "bob/alice-mic")
        let aliceSub = Self.watch(core, transport: "alice/sub", consumer: "alice/carol-mic")
        #expect(alice.transport != nil && alice.producer != nil && alice.stream != nil && alice.consumer != nil)
        core.closeTransport("alice/pub", reason: nil)
        core.closeTransport("alice/sub", reason: nil)
        #expect(alice.transport == nil)
        #expect(alice.producer == nil && bobOfAliceMic.producer == nil)
        #expect(alice.stream == nil)
        #expect(alice.consumer == nil && bobOfAliceMic.consumer == nil)
        #expect(aliceSub.transport == nil && aliceSub.consumer == nil)
        #expect(core.consumers.keys.map(\.rawValue).sorted() == ["bob/carol-mic"])
        // The rest of the room still forwards.
        Self.carolSpeaks(core, seq: 1, now: now)
        #expect(bobSink.packets.map(\.ssrc) == [0xB003])
    }

    /// Unpublishing a track frees the producer, its streams and its consumers; the transport stays.
    @Test func closingAProducerFreesItsStreamsAndConsumers() throws {
        let (core, _, _, _) = try Self.room()
        let cam = Self.watch(core, transport: "alice/pub", producer: "alice-cam", consumer: "carol/alice-cam")
        core.closeProducer("alice-cam")
        #expect(cam.producer == nil && cam.stream == nil && cam.consumer == nil)
        #expect(cam.transport != nil)
        #expect(core.consumers["bob/alice-cam"] == nil && core.consumers["bob/alice-mic"] != nil)
    }

    /// An unsubscribe, or the subscriber leaving, frees the consumer; the producer keeps
    /// forwarding to the others.
    @Test func closingASubscriberFreesItsConsumersOnly() throws {
        let (core, bobSink, _, now) = try Self.room()
        let bob = Self.watch(core, transport: "bob/sub", producer: "carol-mic", consumer: "bob/carol-mic")
        core.closeTransport("bob/sub", reason: nil)
        #expect(bob.transport == nil && bob.consumer == nil)
        #expect(bob.producer != nil)
        Self.carolSpeaks(core, seq: 1, now: now)
        #expect(bobSink.rtp.isEmpty)
        #expect(core.transports["alice/sub"].map { $0.counters.rtpSent } == 1)
    }

    /// A channel's close (its last participant gone, an API close, a server drain) closes the
    /// router: everything in it is freed, the router last.
    @Test func closingTheRouterFreesEverythingInIt() throws {
        let (core, _, _, _) = try Self.room()
        let all = [Self.watch(core, transport: "alice/pub", producer: "alice-cam", consumer: "bob/alice-cam"),
                   Self.watch(core, transport: "carol/sub", producer: "carol-mic", consumer: "alice/carol-mic")]
        weak var router = core.routers["room"]
        core.closeRouter("room")
        #expect(router == nil)
        for watch in all {
            #expect(watch.transport == nil && watch.producer == nil && watch.stream == nil && watch.consumer == nil)
        }
        #expect(core.transports.isEmpty && core.producers.isEmpty && core.consumers.isEmpty)
    }
}
