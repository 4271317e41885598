import SRTCTestSupport
import Foundation
import RTCMedia
import RTCNet
import RTCTransport
import RTCWire
import SFU
import TestWait
import Testing

/// The SFU over real sockets: a `SFUWorker` on a loopback `MediaPort`, client `PeerTransport`s
/// (ICE controlling, DTLS client, SRTP) as a publisher and subscribers, real Opus and VP8
/// simulcast media.
@Suite(.serialized) struct SFULoopbackTests {
    let events = EventCollector()
    let worker: SFUWorker
    let certificate: DTLSCertificate

    init() async throws {
        worker = try SFUWorker(bind: SocketAddress(ip: "127.0.0.1", port: 0)!, listener: events)
        certificate = try DTLSCertificate()
        try await worker.createRouter("room")
    }

    func client(_ participant: ParticipantID, _ role: String) async throws -> LoopbackClient {
        try await LoopbackClient.connect(to: worker, id: TransportID("\(participant)/\(role)"), router: "room",
                                         participant: participant, certificate: certificate)
    }

    func simulcastPublisher(_ client: LoopbackClient) async throws -> MediaTestPublisher {
        let publisher = try MediaTestPublisher(path: client, audioSSRC: 0x1111, video: [
            MediaTestClient.VideoLayer(rid: "h", desc: "camera_big", ssrc: 0x10, width: 320, height: 180),
            MediaTestClient.VideoLayer(rid: "l", desc: "camera_small", ssrc: 0x20, width: 160, height: 90),
        ])
        try await worker.produce("mic", transport: "alice/pub", kind: .audio, parameters: publisher.audioParameters())
        try await worker.produce("cam", transport: "alice/pub", kind: .video, parameters: publisher.videoParameters())
        return publisher
    }

    /// Returns once the SFU has received every packet `publisher` sent on `transport` and each
    /// subscriber has every packet its consumer sent: exact counts, not a pause.
    func waitForDelivery(from publisher: MediaTestPublisher, on transport: TransportID,
                         to consumers: [(client: LoopbackClient, consumer: ConsumerID, ssrc: UInt32)]) async throws {
        try await eventually("the SFU received all \(publisher.packetsSent) packets") {
            try await worker.stats(of: transport).rtpReceived == publisher.packetsSent
        }
        for c in consumers {
            try await eventually("\(c.consumer)'s packets delivered") {
                try await c.client.packets(ssrc: c.ssrc).count == worker.stats(of: c.consumer).packetsSent
            }
        }
    }

    static func subscriberParameters(_ kind: MediaKind, mid: String) -> RTPParameters {
        RTPParameters(mid: mid, codecs: [kind == .audio ? .opus(payloadType: 109) : .vp8(payloadType: 98)],
                      headerExtensions: [RTPHeaderExtensionParameters(uri: RTPHeaderExtensionURI.mid, id: 1),
                                         RTPHeaderExtensionParameters(uri: RTPHeaderExtensionURI.transportWideCC, id: 5)])
    }

    @Test func forwardsOpusAndSimulcastVP8ToTwoSubscribersRewritten() async throws {
        let alice = try await client("alice", "pub")
        let bob = try await client("bob", "sub")
        let carol = try await client("carol", "sub")
        defer { alice.close(); bob.close(); carol.close(); worker.stop() }
        let publisher = try await simulcastPublisher(alice)
        let bobMic = try await worker.consume("bob/mic", transport: "bob/sub", producer: "mic",
                                              parameters: Self.subscriberParameters(.audio, mid: "0"))
        let bobCam = try await worker.consume("bob/cam", transport: "bob/sub", producer: "cam",
                                              parameters: Self.subscriberParameters(.video, mid: "1"), preferredLayer: "camera_big")
        let carolMic = try await worker.consume("carol/mic", transport: "carol/sub", producer: "mic",
                                                parameters: Self.subscriberParameters(.audio, mid: "0"))
        let carolCam = try await worker.consume("carol/cam", transport: "carol/sub", producer: "cam",
                                                parameters: Self.subscriberParameters(.video, mid: "1"), preferredLayer: "camera_small")
        #expect(bobCam.layers == ["camera_big", "camera_small"])

        try await publisher.run(seconds: 2)
        try await waitForDelivery(from: publisher, on: "alice/pub", to: [(bob, "bob/mic", bobMic.ssrc), (bob, "bob/cam", bobCam.ssrc),
                                                                        (carol, "carol/mic", carolMic.ssrc), (carol, "carol/cam", carolCam.ssrc)])

        // Audio: every Opus payload sent, in order, on the consumer's SSRC with contiguous numbers.
        for (subscriber, info) in [(bob, bobMic), (carol, carolMic)] {
            let audio = subscriber.packets(ssrc: info.ssrc)
            #expect(audio.map(\.payload) == publisher.audioPayloads)
            #expect(VideoCheck.contiguous(audio))
            #expect(audio.allSatisfy { $0.payloadType == 109 })
            #expect(zip(audio, audio.dropFirst()).allSatisfy { $1.timestamp &- $0.timestamp == 960 })
            #expect(audio.first?.extensionValue(id: 1) == Array("0".utf8))
        }

        // Video: each subscriber decodes its own layer from the first packet on, frames in order.
        let bobVideo = bob.packets(ssrc: bobCam.ssrc), carolVideo = carol.packets(ssrc: carolCam.ssrc)
        #expect(VideoCheck.contiguous(bobVideo) && VideoCheck.contiguous(carolVideo))
        let bobFrames = try VideoCheck.decode(bobVideo), carolFrames = try VideoCheck.decode(carolVideo)
        #expect(bobFrames.count >= 40 && carolFrames.count >= 40)
        #expect(bobFrames.first?.isKeyFrame == true && carolFrames.first?.isKeyFrame == true)
        #expect(bobFrames.allSatisfy { $0.width == 320 && $0.height == 180 })
        #expect(carolFrames.allSatisfy { $0.width == 160 && $0.height == 90 })
        let numbers = bobFrames.compactMap(\.number)
        #expect(numbers.count == bobFrames.count && zip(numbers, numbers.dropFirst()).allSatisfy { $1 == $0 + 1 })
        #expect(bobVideo.allSatisfy { $0.payloadType == 98 })
        #expect(events.layerSwitches(of: "bob/cam") == [LayerSwitch(layer: "camera_big", previous: nil, cause: .requested)])
        #expect(events.layerSwitches(of: "carol/cam") == [LayerSwitch(layer: "camera_small", previous: nil, cause: .requested)])

        // The publisher heard from the SFU: transport-cc feedback and receiver reports.
        let rtcp = alice.log.withLock { $0.rtcp }
        let feedback = rtcp.compactMap { if case .transportCC(let f) = $0 { return f } else { return nil } }
        #expect(feedback.count >= 10)
        let reported = feedback.reduce(0) { $0 + $1.packetResults.filter { $0.arrivalTime != nil }.count }
        #expect(reported >= publisher.audioPayloads.count)
        let reportBlocks = rtcp.flatMap { if case .receiverReport(let r) = $0 { return r.reports } else { return [] } }
        #expect(Set(reportBlocks.map(\.ssrc)).isSuperset(of: [0x1111, 0x10, 0x20]))
        // Subscribers got sender reports for their streams.
        let bobSR = bob.log.withLock { $0.rtcp }.compactMap { if case .senderReport(let s) = $0 { return s.ssrc } else { return nil } }
        #expect(Set(bobSR) == [bobMic.ssrc, bobCam.ssrc])
    }

    @Test func aLayerSwitchLandsOnAKeyFrameWithContinuousNumbering() async throws {
        let alice = try await client("alice", "pub")
        let bob = try await client("bob", "sub")
        defer { alice.close(); bob.close(); worker.stop() }
        let publisher = try await simulcastPublisher(alice)
        let cam = try await worker.consume("bob/cam", transport: "bob/sub", producer: "cam",
                                           parameters: Self.subscriberParameters(.video, mid: "1"), preferredLayer: "camera_big")
        try await publisher.run(seconds: 1.2, audio: false)
        try await worker.setPreferredLayer("bob/cam", layer: "camera_small")
        try await publisher.run(seconds: 1.2, audio: false)
        try await waitForDelivery(from: publisher, on: "alice/pub", to: [(bob, "bob/cam", cam.ssrc)])

        #expect(events.layerSwitches(of: "bob/cam") == [
            LayerSwitch(layer: "camera_big", previous: nil, cause: .requested),
            LayerSwitch(layer: "camera_small", previous: "camera_big", cause: .requested),
        ])
        let video = bob.packets(ssrc: cam.ssrc)
        #expect(VideoCheck.contiguous(video))
        #expect(zip(video, video.dropFirst()).allSatisfy { !RTPTimestamp.isNewer($0.timestamp, than: $1.timestamp) })
        let frames = try VideoCheck.decode(video)
        let switchIndex = try #require(frames.firstIndex { $0.width == 160 })
        #expect(switchIndex >= 20)
        #expect(frames[..<switchIndex].allSatisfy { $0.width == 320 })
        #expect(frames[switchIndex...].allSatisfy { $0.width == 160 })
        // The first small frame is a key frame (the decoder could start it) and the pictures go on
        // from where the big layer was (same test-pattern clock on both layers).
        #expect(frames[switchIndex].isKeyFrame)
        let before = try #require(frames[switchIndex - 1].number), after = try #require(frames[switchIndex].number)
        // (The switch key frame may show the same picture as the last big frame: both layers
        // encode every capture.)
        #expect(after >= before && after - before <= 15)
        // The switch asked the publisher for a small-layer key frame.
        #expect(alice.log.withLock { $0.rtcp }.contains { if case .pictureLossIndication(let p) = $0 { p.mediaSSRC == 0x20 } else { false } })
        #expect(publisher.keyFrames[0x20, default: 0] >= 2)
        let stats = try await worker.stats(of: ConsumerID("bob/cam"))
        #expect(stats.currentLayer == "camera_small")
    }

    @Test func aPacketNackedByTheSubscriberIsRetransmittedAndAPLIReachesThePublisher() async throws {
        let alice = try await client("alice", "pub")
        let relay = try LossyRelay(server: worker.port.localAddress)
        let bob = try await LoopbackClient.connect(to: worker, id: "bob/sub", router: "room", participant: "bob",
                                                   certificate: certificate, via: relay)
        defer { alice.close(); bob.close(); relay.stop(); worker.stop() }
        let publisher = try await simulcastPublisher(alice)
        let cam = try await worker.consume("bob/cam", transport: "bob/sub", producer: "cam",
                                           parameters: Self.subscriberParameters(.video, mid: "1"), preferredLayer: "camera_small")
        // The network loses Bob's 30th video packet.
        let seen = SeenCounter()
        relay.drop.set { bytes in LossyRelay.rtpHeader(bytes)?.ssrc == cam.ssrc && seen.next() == 30 }
        try await publisher.run(seconds: 1.5, audio: false)
        // The pacer sends what waits on the worker's tick: on a loaded machine the 30th packet
        // may pass the relay a moment after the publisher is done.
        try await eventually("the relay drops bob's 30th video packet") { relay.dropped.withLock { !$0.isEmpty } }
        let lostDatagram = try #require(relay.dropped.withLock { $0.first })
        let lost = try #require(lostDatagram.withUnsafeBytes { LossyRelay.rtpHeader($0) }).seq
        #expect(!bob.packets(ssrc: cam.ssrc).contains { $0.sequenceNumber == lost })

        bob.send(rtcp: [.nack(TransportLayerNack(senderSSRC: 0xB0B, mediaSSRC: cam.ssrc, lost: [lost]))])
        #expect(await bob.waitFor { $0.rtp.contains { $0.ssrc == cam.ssrc && $0.sequenceNumber == lost } })
        #expect(try await worker.stats(of: ConsumerID("bob/cam")).retransmissions == 1)
        // With the retransmission in its place the stream is whole: every frame decodes, in order.
        let video = bob.packets(ssrc: cam.ssrc).sorted {
            SequenceNumber.distance(from: $1.sequenceNumber, to: $0.sequenceNumber) < 0
        }
        #expect(VideoCheck.contiguous(video))
        let frames = try VideoCheck.decode(video)
        let numbers = frames.compactMap(\.number)
        #expect(numbers.count == frames.count && numbers.count >= 40)
        #expect(zip(numbers, numbers.dropFirst()).allSatisfy { $1 == $0 + 1 })

        // A PLI from the subscriber for its SSRC reaches the publisher for the forwarded layer.
        // (Inside the throttle's window of an earlier request it still goes out, when the window ends.)
        let before = alice.log.withLock { $0.rtcp.count }
        bob.send(rtcp: [.pictureLossIndication(PictureLossIndication(senderSSRC: 0xB0B, mediaSSRC: cam.ssrc))])
        #expect(await alice.waitFor { log in
            log.rtcp.dropFirst(before).contains { if case .pictureLossIndication(let p) = $0 { p.mediaSSRC == 0x20 } else { false } }
        })
    }

    @Test func activeSpeakerOrderFollowsTheAudioLevelsSent() async throws {
        let alice = try await client("alice", "pub")
        let carol = try await client("carol", "pub")
        defer { alice.close(); carol.close(); worker.stop() }
        let alicePublisher = try MediaTestPublisher(path: alice, audioSSRC: 0xA)
        let carolPublisher = try MediaTestPublisher(path: carol, audioSSRC: 0xC)
        try await worker.produce("mic-a", transport: "alice/pub", kind: .audio, parameters: alicePublisher.audioParameters())
        try await worker.produce("mic-c", transport: "carol/pub", kind: .audio, parameters: carolPublisher.audioParameters())

        func talk(alice aliceLevel: UInt8, carol carolLevel: UInt8, seconds: Double) async throws {
            alicePublisher.audioLevel = aliceLevel
            carolPublisher.audioLevel = carolLevel
            // 20 ms packets in real time, catching up after a late wake-up.
            let start = Date()
            var due = 0.0
            while Date().timeIntervalSince(start) < seconds {
                while Date().timeIntervalSince(start) >= due {
                    try alicePublisher.sendAudio()
                    try carolPublisher.sendAudio()
                    due += 0.020
                }
                try await Task.sleep(for: .milliseconds(5))
            }
        }
        try await talk(alice: 20, carol: 127, seconds: 1)
        try await talk(alice: 40, carol: 15, seconds: 1.5)
        try await talk(alice: 127, carol: 127, seconds: 3)
        // Alice alone; then Carol louder than Alice; then silence, Alice fading first.
        let orders = events.speakerOrders
        #expect(orders.first == ["alice"])
        let both = try #require(orders.firstIndex(of: ["carol", "alice"]))
        let carolAlone = try #require(orders.lastIndex(of: ["carol"]))
        #expect(both < carolAlone)
        #expect(orders.last == [])
        #expect(!orders.dropFirst(both).contains(["alice"]))
    }
}

/// Counts packets seen by a drop filter (on the client's I/O thread).
final class SeenCounter: @unchecked Sendable {
    private var count = 0
    func next() -> Int { count += 1; return count }
}
