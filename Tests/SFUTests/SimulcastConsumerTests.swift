import RTCWire
import Testing
@testable import SFU

/// One simulcast layer of a publisher: rid, SSRC and its own sequence, timestamp and picture-id
/// counters, as libwebrtc sends them (each layer starts from its own random values).
struct LayerSource {
    let rid: String
    let ssrc: UInt32
    var seq: UInt16
    var ts: UInt32
    var picture: UInt16
    var packetSize = 100

    /// One frame of `packets` packets; returns them and advances the counters (33 ms of 90 kHz).
    mutating func frame(key: Bool = false, packets: Int = 1) -> [[UInt8]] {
        var out: [[UInt8]] = []
        for index in 0 ..< packets {
            out.append(PacketFactory.rtp(
                pt: 96, seq: seq, ts: ts, ssrc: ssrc, marker: index == packets - 1,
                extensions: [(SFUHarness.pubMid, Array("1".utf8)), (SFUHarness.pubRid, Array(rid.utf8))],
                payload: PacketFactory.vp8(pictureID: picture, start: index == 0, keyFrame: key, size: packetSize)))
            seq &+= 1
        }
        ts &+= 2970
        picture = (picture &+ 1) & 0x7FFF
        return out
    }
}

struct SimulcastConsumerTests {
    typealias H = SFUHarness

    func harness(preferred: String) throws -> SFUHarness {
        let h = try SFUHarness()
        try h.core.produce("cam", transport: "alice/pub", kind: .video, parameters: H.simulcastProducer(), muted: false)
        let info = try h.core.consume("bob/cam", transport: "bob/sub", producer: "cam",
                                      parameters: H.subscriberParameters(kind: .video), preferredLayer: preferred,
                                      paused: false, now: h.now)
        #expect(info.layers == ["camera_big", "camera_small"])
        return h
    }

    @Test func aSmallLayerSubscriberWaitsForItsLayerRatherThanTakeTheBigOneThatStartedFirst() throws {
        let h = try harness(preferred: "camera_small")
        var big = LayerSource(rid: "h", ssrc: 0x10, seq: 300, ts: 100_000, picture: 1000)
        var small = LayerSource(rid: "l", ssrc: 0x20, seq: 900, ts: 500_000, picture: 20)
        // Only the big layer has started: the subscriber gets nothing yet.
        for _ in 0..<5 {
            for p in big.frame(key: true) { h.publish(p) }
            h.advance(ms: 33)
            h.tick()
        }
        #expect(h.subscriberSink.rtp.isEmpty)
        // The small layer starts: it is what flows, from its key frame.
        for p in small.frame(key: true) + big.frame(key: true) { h.publish(p) }
        h.advance(ms: 20)
        h.tick()
        for p in small.frame() + big.frame() { h.publish(p) }
        #expect(!h.subscriberSink.rtp.isEmpty)
        #expect(h.log.layerSwitches.first == LayerSwitch(layer: "camera_small", previous: nil, cause: .requested))
        #expect(!h.log.layerSwitches.contains { $0.layer == "camera_big" })
    }

    @Test func startsOnTheTargetKeyFrameAndSwitchesOnlyOnTheNewLayersKeyFrame() throws {
        let h = try harness(preferred: "camera_big")
        var big = LayerSource(rid: "h", ssrc: 0x10, seq: 300, ts: 100_000, picture: 1000)
        var small = LayerSource(rid: "l", ssrc: 0x20, seq: 65_530, ts: 4_294_960_000, picture: 32_766)

        // Before a key frame of the big layer nothing flows, whatever the small layer sends.
        for p in small.frame(key: true) + big.frame() { h.publish(p) }
        #expect(h.subscriberSink.rtp.isEmpty)
        // The SSRCs were learned from the rids, so the pending key-frame request can go out now.
        h.advance(ms: 20)
        h.tick()
        #expect(h.publisherSink.rtcpPackets.contains(.pictureLossIndication(PictureLossIndication(senderSSRC: h.publisher.rtcpSSRC, mediaSSRC: 0x10))))

        for p in big.frame(key: true, packets: 3) + small.frame() + big.frame(packets: 2) { h.publish(p) }
        var out = h.subscriberSink.packets
        #expect(out.count == 5)
        #expect(h.log.layerSwitches == [LayerSwitch(layer: "camera_big", previous: nil, cause: .requested)])

        // Ask for the small layer: the big one keeps flowing until the small key frame.
        h.publisherSink.clear()
        try h.core.setPreferredLayer("bob/cam", layer: "camera_small", now: h.now)
        #expect(h.publisherSink.rtcpPackets == [.pictureLossIndication(PictureLossIndication(senderSSRC: h.publisher.rtcpSSRC, mediaSSRC: 0x20))])
        h.advance(ms: 33)
        for p in big.frame() + small.frame() { h.publish(p) }
        #expect(h.subscriberSink.rtp.count == 6)
        h.advance(ms: 33)
        let lastBig = h.subscriberSink.packets.last!
        for p in small.frame(key: true, packets: 2) + big.frame() + small.frame() { h.publish(p) }
        out = h.subscriberSink.packets
        #expect(out.count == 9)
        #expect(h.log.layerSwitches.last == LayerSwitch(layer: "camera_small", previous: "camera_big", cause: .requested))

        // One stream for the subscriber: contiguous numbers, one SSRC, timestamps continuing by
        // the 33 ms that passed, picture ids continuing by one.
        #expect(Set(out.map(\.ssrc)) == [0xAAAA])
        #expect(zip(out, out.dropFirst()).allSatisfy { $1.sequenceNumber == $0.sequenceNumber &+ 1 })
        let firstSmall = out[6]
        #expect(firstSmall.timestamp == lastBig.timestamp &+ 2970)
        #expect(PacketFactory.pictureID(firstSmall.payload) == (PacketFactory.pictureID(lastBig.payload) + 1) & 0x7FFF)
        #expect(PacketFactory.pictureID(out[8].payload) == PacketFactory.pictureID(firstSmall.payload) + 1)
        #expect(out[8].timestamp == firstSmall.timestamp &+ 2970)
        // The key frame's payload is otherwise untouched.
        #expect(Array(out[6].payload[4...]) == Array(PacketFactory.vp8(pictureID: 0, keyFrame: true, size: 100)[4...]))
    }

    @Test func aLowBandwidthEstimateDowngradesAfterTheGraceAndRaisesAgainAfterTheHold() throws {
        let h = try harness(preferred: "camera_big")
        var feed = TwoLayerFeed(h)
        func run(ms: Int) { feed.run(ms: ms) }
        func remb(_ bitrate: UInt64) { feed.remb(bitrate) }

        run(ms: 1500)
        #expect(h.log.layerSwitches == [LayerSwitch(layer: "camera_big", previous: nil, cause: .requested)])
        remb(300_000)
        // The first estimate gets its grace (3 s, LayerAllocator.startupGrace): no switch yet…
        run(ms: 2500)
        let consumer = try #require(h.core.consumers["bob/cam"] as? SimulcastConsumer)
        #expect(consumer.targetLayer == 1)
        // …then, below for longer than the hold, the small layer is the target.
        run(ms: 1200)
        #expect(consumer.targetLayer == 0)
        #expect(consumer.currentLayer == 1)       // waiting for the small key frame
        feed.keySmall = true
        run(ms: 100)
        #expect(h.log.layerSwitches.last == LayerSwitch(layer: "camera_small", previous: "camera_big", cause: .bandwidth))
        #expect(consumer.currentLayer == 0)

        // Plenty of bandwidth again: no raise during the hold after the downgrade (2 s)…
        remb(5_000_000)
        run(ms: 500)
        #expect(consumer.targetLayer == 0)
        // …then the big layer comes back on its next key frame.
        run(ms: 2000)
        #expect(consumer.targetLayer == 1)
        feed.keyBig = true
        run(ms: 100)
        #expect(h.log.layerSwitches.last == LayerSwitch(layer: "camera_big", previous: "camera_small", cause: .bandwidth))
        let seqs = h.subscriberSink.packets.map(\.sequenceNumber)
        #expect(zip(seqs, seqs.dropFirst()).allSatisfy { $1 == $0 &+ 1 })
    }

    @Test func anEstimateBelowTheSmallLayerPausesVideoWithAnEventAndItResumesOnAKeyFrame() throws {
        let h = try harness(preferred: "camera_big")
        var feed = TwoLayerFeed(h)
        func run(ms: Int) { feed.run(ms: ms) }
        func remb(_ bitrate: UInt64) { feed.remb(bitrate) }

        run(ms: 1500)
        let consumer = try #require(h.core.consumers["bob/cam"] as? SimulcastConsumer)
        #expect(consumer.currentLayer == 1)
        // 50 kbit/s cannot carry even the small layer (≈ 80 kbit/s): after the grace and the hold, paused.
        remb(50_000)
        run(ms: 5000)
        #expect(consumer.isPausedForBandwidth)
        #expect(h.log.layerSwitches.last == LayerSwitch(layer: "none", previous: "camera_big", cause: .bandwidth))
        // Nothing is forwarded while paused, whatever the layers send (key frames too); probes
        // would send padding only.
        var media: Int { h.subscriberSink.packets.filter { !$0.payload.isEmpty }.count }
        run(ms: 1000)  // what the pacer held back before the pause leaves (at the 50 kbit/s estimate)
        #expect(h.subscriber.pacer.isEmpty)
        let sentBefore = media
        feed.keyBig = true
        run(ms: 1000)
        #expect(media == sentBefore)
        // A requested layer does not resume it: it becomes the preference.
        try h.core.setPreferredLayer("bob/cam", layer: "camera_big", now: h.now)
        run(ms: 100)
        #expect(media == sentBefore)

        // The link is back: resumed after the hold, on a key frame, named as a switch from `none`.
        remb(5_000_000)
        run(ms: 2000)
        #expect(!consumer.isPausedForBandwidth)
        #expect(consumer.targetLayer == 1)
        feed.keyBig = true
        run(ms: 100)
        #expect(h.log.layerSwitches.last == LayerSwitch(layer: "camera_big", previous: "none", cause: .bandwidth))
        #expect(media > sentBefore)
        let seqs = h.subscriberSink.packets.map(\.sequenceNumber)
        #expect(zip(seqs, seqs.dropFirst()).allSatisfy { $1 == $0 &+ 1 })
    }

    @Test func aPauseFinishesTheFrameBeingSentThenSendsNothing() throws {
        let h = try harness(preferred: "camera_big")
        var big = LayerSource(rid: "h", ssrc: 0x10, seq: 1, ts: 0, picture: 1)
        for p in big.frame(key: true, packets: 2) { h.publish(p) }
        h.advance(ms: 20)
        h.tick()
        let frame = big.frame(packets: 3)
        h.publish(frame[0])
        let consumer = try #require(h.core.consumers["bob/cam"] as? SimulcastConsumer)
        consumer.pauseForBandwidth(now: h.now)
        #expect(h.log.layerSwitches.last == LayerSwitch(layer: "none", previous: "camera_big", cause: .bandwidth))
        for p in frame[1...] + big.frame() { h.publish(p) }
        // The frame's last two packets, not the next frame.
        let out = h.subscriberSink.packets
        #expect(out.count == 5)
        #expect(out.last?.marker == true)
        #expect(Set(out[2...].map(\.timestamp)).count == 1)
    }
}

/// 30 fps video on both layers of the harness's simulcast producer (big ≈ 1.2 Mbit/s in 4
/// packets a frame, small ≈ 80 kbit/s), ticking the SFU every 20 ms; key frames when asked.
struct TwoLayerFeed {
    let h: SFUHarness
    var big = LayerSource(rid: "h", ssrc: 0x10, seq: 1, ts: 0, picture: 1, packetSize: 1200)
    var small = LayerSource(rid: "l", ssrc: 0x20, seq: 1, ts: 0, picture: 1, packetSize: 300)
    /// The next frame of the layer is a key frame (starts true: each layer starts with one).
    var keyBig = true, keySmall = true
    /// Sends only the layers the last `layersNeeded` names, each starting again with a key
    /// frame, as a dynacast publisher does (every layer until the first one).
    var obeysDynacast = false
    private(set) var sendsBig = true, sendsSmall = true

    init(_ h: SFUHarness) { self.h = h }

    mutating func run(ms: Int) {
        for step in 0 ..< ms / 10 {
            if obeysDynacast, let needed = DynacastTests.needed(h.log).last {
                let big = needed.contains("camera_big"), small = needed.contains("camera_small")
                if big && !sendsBig { keyBig = true }
                if small && !sendsSmall { keySmall = true }
                sendsBig = big
                sendsSmall = small
            }
            if step % 3 == 0 {
                let packets = (sendsBig ? big.frame(key: keyBig, packets: 4) : []) + (sendsSmall ? small.frame(key: keySmall) : [])
                for p in packets { h.publish(p) }
                if sendsBig { keyBig = false }
                if sendsSmall { keySmall = false }
            }
            h.advance(ms: 10)
            if step % 2 == 1 { h.tick() }
        }
    }

    /// A REMB from the subscriber for its consumer's SSRC.
    func remb(_ bitrate: UInt64) {
        h.subscriberRTCP([.remb(ReceiverEstimatedMaxBitrate(senderSSRC: 0xB0B, bitrate: bitrate, ssrcs: [0xAAAA]))])
    }
}
