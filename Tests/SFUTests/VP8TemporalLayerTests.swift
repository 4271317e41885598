import RTCMedia
import RTCWire
import Testing
@testable import SFU

/// What a subscriber got: each packet's VP8 descriptor.
private func descriptors(_ h: SFUHarness) throws -> [VP8PayloadDescriptor] {
    try h.subscriberSink.packets.filter { !$0.payload.isEmpty }.map { try VP8PayloadDescriptor.parse(Array($0.payload)).descriptor }
}

struct VP8TemporalLayerSelectorTests {
    /// Frame `index` of the L1T3 pattern as one packet's descriptor.
    func frame(_ index: Int, start: Bool = true) -> VP8PayloadDescriptor {
        let tid = LayerSource.temporalID(index)
        return VP8PayloadDescriptor(startOfPartition: start, pictureID: UInt16(index), tl0PicIndex: UInt8(index / 4),
                                    temporalLayerID: tid, layerSync: tid == 1 || index % 4 == 1)
    }

    @Test func dropsUpperLayersFromTheNextFrameAndRaisesOneLayerAtASyncFrame() {
        var selector = VP8TemporalLayerSelector()
        var kept: [Int] = []
        func run(_ frames: Range<Int>) {
            for index in frames where selector.select(frame(index), isKeyFrame: index == 0, timestamp: UInt32(index) * 3000) {
                kept.append(index)
            }
        }
        run(0 ..< 5)
        #expect(kept == [0, 1, 2, 3, 4])
        // Frame 5 (TL2) has begun: lowering to TL0 keeps its second packet, then drops from frame 6.
        #expect(selector.select(frame(5), isKeyFrame: false, timestamp: 15_000) == true)
        selector.target = 0
        #expect(selector.select(frame(5, start: false), isKeyFrame: false, timestamp: 15_000) == true)
        kept = []
        run(6 ..< 13)
        #expect(kept == [8, 12])
        // Up to all: TL1 at its next frame (10: Y), TL2 only at a TL2 frame with Y after that
        // (13), not at 11 (TL2 without Y: it refers to the TL1 frame 10 … and earlier ones).
        selector.target = VP8TemporalLayerSelector.all
        kept = []
        run(13 ..< 20)
        // 13 is TL2 with Y but TL1 is not forwarded yet; 14 (TL1, Y) raises to TL1, 15 is TL2 without Y.
        #expect(kept == [14, 16, 17, 18, 19])
        #expect(selector.current == 2)
    }

    @Test func aKeyFrameRaisesEveryLayerAtOnceAndAStreamWithoutTemporalIDsIsKept() {
        var selector = VP8TemporalLayerSelector(target: 0)
        #expect(selector.select(frame(0), isKeyFrame: true, timestamp: 0) == true)
        #expect(selector.select(frame(1), isKeyFrame: false, timestamp: 3000) == false)
        selector.target = 2
        // A key frame: TL2 flows from the next frame without waiting for a sync frame.
        #expect(selector.select(frame(0), isKeyFrame: true, timestamp: 6000) == true)
        #expect(selector.select(frame(3), isKeyFrame: false, timestamp: 9000) == true)
        selector.target = 0
        #expect(selector.select(VP8PayloadDescriptor(startOfPartition: true, pictureID: 9), isKeyFrame: false, timestamp: 12_000) == true)
        // A raise waits for the start of a frame: a sync frame whose first packet is missing does not raise.
        var raising = VP8TemporalLayerSelector(target: 0)
        _ = raising.select(frame(0), isKeyFrame: true, timestamp: 0)
        raising.target = 1
        #expect(raising.select(frame(2, start: false), isKeyFrame: false, timestamp: 6000) == false)
        #expect(raising.select(frame(2), isKeyFrame: false, timestamp: 6000) == false)
        #expect(raising.select(frame(6), isKeyFrame: false, timestamp: 18_000) == true)
    }
}

extension VP8TemporalLayerSelectorTests {
    /// With the Dependency Descriptor standing in for TID and Y (Chromium's VP8 when the extension
    /// is negotiated): a frame that is a switch point of a higher decode target raises to it at once.
    @Test func aSwitchIndicationRaisesSeveralLayersAtOnce() {
        var selector = VP8TemporalLayerSelector(target: 0)
        #expect(selector.select(frame(0), isKeyFrame: true, timestamp: 0) == true)
        selector.target = 2
        #expect(selector.select(frame(3), isKeyFrame: false, timestamp: 3000, switchUpTo: -1) == false)
        #expect(selector.select(frame(2), isKeyFrame: false, timestamp: 6000, switchUpTo: 2) == true)
        #expect(selector.current == 2)
        #expect(selector.select(frame(3), isKeyFrame: false, timestamp: 9000) == true)
    }
}

struct VP8PictureIDRewriterDropTests {
    @Test func droppedFramesLeaveNoGapAndLatePacketsKeepTheirFramesID() {
        var rewriter = VP8PictureIDRewriter()
        func send(_ picture: UInt16, tl0: UInt8 = 7) -> UInt16 {
            var payload = PacketFactory.vp8(pictureID: picture, tl0: tl0)
            payload.withUnsafeMutableBytes { _ = rewriter.rewrite($0) }
            #expect(payload[4] == tl0)  // TL0 frames are never dropped: TL0PICIDX goes unchanged
            return PacketFactory.pictureID(payload)
        }
        #expect(send(32_766) == 32_766)
        #expect(rewriter.drop(pictureID: 32_767, long: true) == false)
        #expect(rewriter.drop(pictureID: 32_767, long: true) == false)  // its second packet: counted once
        #expect(send(0) == 32_767)
        // A late packet of the frame before the drop keeps that frame's id.
        #expect(send(32_766) == 32_766)
        #expect(rewriter.drop(pictureID: 1, long: true) == false)
        #expect(send(2) == 0)
        // Frame 3 is missing (lost so far) when 4 comes: 4 leaves room for it…
        #expect(send(4) == 2)
        // …so 3 must go out when it arrives, even as a layer now dropped, with the id kept for it.
        #expect(rewriter.drop(pictureID: 3, long: true) == true)
        #expect(send(3) == 1)
        // A late packet of a dropped frame stays dropped.
        #expect(rewriter.drop(pictureID: 1, long: true) == false)
        // A switch continues after the last id sent, whatever was dropped just before it.
        rewriter.resync()
        #expect(rewriter.drop(pictureID: 900, long: true) == false)
        var payload = PacketFactory.vp8(pictureID: 901, tl0: 40)
        payload.withUnsafeMutableBytes { _ = rewriter.rewrite($0) }
        #expect(PacketFactory.pictureID(payload) == 3)
        #expect(payload[4] == 8)
    }
}

/// Through the SFU: a VP8 simulcast subscriber whose temporal target is lowered gets TL0 frames
/// only, as one stream without gaps, and the upper layers again from sync frames.
struct VP8SimulcastTemporalTests {
    typealias H = SFUHarness

    func harness() throws -> (SFUHarness, SimulcastConsumer) {
        let h = try SFUHarness()
        try h.core.produce("cam", transport: "alice/pub", kind: .video, parameters: H.simulcastProducer(), muted: false)
        _ = try h.core.consume("bob/cam", transport: "bob/sub", producer: "cam", parameters: H.subscriberParameters(kind: .video),
                               preferredLayer: "camera_big", paused: false, now: h.now)
        return (h, try #require(h.core.consumers["bob/cam"] as? SimulcastConsumer))
    }

    @Test func aLowerTemporalTargetForwardsFewerFramesWithContinuousNumbersAndIDs() throws {
        let (h, consumer) = try harness()
        var big = LayerSource(rid: "h", ssrc: 0x10, seq: 65_500, ts: 0, picture: 32_700, packetSize: 300, temporal: true, tl0: 250)
        var small = LayerSource(rid: "l", ssrc: 0x20, seq: 10, ts: 0, picture: 5, packetSize: 300, temporal: true, tl0: 1)
        var sent: [VP8PayloadDescriptor] = []   // the big layer's frames, first packet each
        func publish(_ frames: Int, key: Bool = false) throws {
            for index in 0 ..< frames {
                let packets = big.frame(key: key && index == 0, packets: 2)
                sent.append(try VP8PayloadDescriptor.parse(Array(try RTPPacket(parsing: packets[0]).payload)).descriptor)
                for p in packets + small.frame(key: key && index == 0) { h.publish(p) }
                h.advance(ms: 33)
                h.core.drainPacers(now: h.now)  // no allocation round: the temporal target set here stays
            }
        }
        try publish(8, key: true)
        #expect(consumer.temporalLayers == 3)
        #expect(try descriptors(h).count == 16)

        consumer.setTemporalTarget(0, now: h.now)
        #expect(consumer.heldTemporalLayer == 0)
        try publish(12)
        var got = try descriptors(h)
        #expect(got.count == 16 + 3 * 2)             // frames 8, 12 and 16 of the pattern: TL0 only
        #expect(got[16...].allSatisfy { $0.temporalLayerID == 0 })
        // One stream: gap-free sequence numbers, picture ids one apart per frame, TL0PICIDX as sent.
        var out = h.subscriberSink.packets
        #expect(zip(out, out.dropFirst()).allSatisfy { $1.sequenceNumber == $0.sequenceNumber &+ 1 })
        let firstFrames = got.filter(\.startOfPartition)
        #expect(zip(firstFrames, firstFrames.dropFirst()).allSatisfy { $1.pictureID! == ($0.pictureID! &+ 1) & 0x7FFF })
        #expect(got[16...].map(\.tl0PicIndex) == sent[8...].filter { $0.temporalLayerID == 0 }.flatMap { [$0.tl0PicIndex, $0.tl0PicIndex] })

        // Every layer again: TL1 from its next sync frame, TL2 from the TL2 sync frame after that.
        consumer.setTemporalTarget(2, now: h.now)
        try publish(8)
        got = try descriptors(h)
        let raised = got[22...].filter(\.startOfPartition).map { $0.temporalLayerID! }
        // Pattern positions 20…27: 0 2 1 2 0 2 1 2 → TL0, (TL2 Y: not yet), TL1 Y, (TL2), TL0, TL2 Y, TL1, TL2.
        #expect(raised == [0, 1, 0, 2, 1, 2])
        out = h.subscriberSink.packets
        #expect(zip(out, out.dropFirst()).allSatisfy { $1.sequenceNumber == $0.sequenceNumber &+ 1 })
        let frames = got.filter(\.startOfPartition)
        #expect(zip(frames, frames.dropFirst()).allSatisfy { $1.pictureID! == ($0.pictureID! &+ 1) & 0x7FFF })

        // A NACK for a packet sent after the drops is answered with the same rewritten id.
        let asked = out[out.count - 3]
        h.subscriberSink.clear()
        h.subscriberRTCP([.nack(TransportLayerNack(senderSSRC: 0xB0B, mediaSSRC: 0xAAAA, lost: [asked.sequenceNumber]))])
        h.tick()
        let resent = try #require(h.subscriberSink.packets.first)
        #expect(resent.sequenceNumber == asked.sequenceNumber)
        #expect(Array(resent.payload) == Array(asked.payload))
    }

    /// The allocation lowers the frame rate before the size: a REMB between what the big layer
    /// costs at 15 fps (TL0 and TL1) and at 30 fps keeps the big layer, at 15 fps; plenty of
    /// bandwidth brings TL2 back.
    @Test func anEstimateShortOfTheBigLayersFullRateLowersItsFrameRateNotItsSize() throws {
        let (h, consumer) = try harness()
        var big = LayerSource(rid: "h", ssrc: 0x10, seq: 1, ts: 0, picture: 1, packetSize: 1100, temporal: true, tl0: 0)
        var small = LayerSource(rid: "l", ssrc: 0x20, seq: 1, ts: 0, picture: 1, packetSize: 250, temporal: true, tl0: 0)
        var first = true
        var estimate: UInt64?
        func run(ms: Int) {
            for step in 0 ..< ms / 33 {
                if let estimate, step % 15 == 0 {
                    h.subscriberRTCP([.remb(ReceiverEstimatedMaxBitrate(senderSSRC: 0xB0B, bitrate: estimate, ssrcs: [0xAAAA]))])
                }
                // TL0 frames of 3 packets, TL1 2, TL2 1: 3/7 of the big layer is TL0, 5/7 TL0 and TL1.
                let packets = first ? 3 : [3, 1, 2, 1][big.count % 4]
                for p in big.frame(key: first, packets: packets) + small.frame(key: first) { h.publish(p) }
                first = false
                h.advance(ms: 33)
                h.tick()
            }
        }
        run(ms: 1500)
        let ladder = consumer.ladderBitrates(now: h.now)
        try #require(ladder.count == 6, "ladder \(ladder)")
        let overhead = 1 + h.subscriber.allocator.configuration.overhead
        estimate = UInt64((Double(ladder[4]) + Double(ladder[5])) / 2 * overhead)
        run(ms: 6000)
        #expect(consumer.targetLayer == 1, "ladder \(ladder) estimate \(estimate ?? 0)")
        #expect(consumer.heldTemporalLayer == 1, "ladder \(ladder) estimate \(estimate ?? 0)")
        #expect(!h.log.layerSwitches.contains { $0.layer == "camera_small" })

        h.subscriberSink.clear()
        var since = big.ts
        run(ms: 990)
        // The frames published in the window (what the pacer still held from before goes out first).
        func framesSince(_ start: UInt32) throws -> [VP8PayloadDescriptor] {
            try h.subscriberSink.packets.filter { !$0.payload.isEmpty && RTPTimestamp.distance(from: start, to: $0.timestamp) >= 0 }
                .map { try VP8PayloadDescriptor.parse(Array($0.payload)).descriptor }.filter(\.startOfPartition)
        }
        var got = try framesSince(since)
        // 30 frames published, the TL2 half of them dropped (the last may still wait in the pacer).
        #expect((14 ... 15).contains(got.count), "\(got.count) frames")
        #expect(got.allSatisfy { $0.temporalLayerID! <= 1 })
        #expect(zip(got, got.dropFirst()).allSatisfy { $1.pictureID! == ($0.pictureID! &+ 1) & 0x7FFF })
        let seqs = h.subscriberSink.packets.map(\.sequenceNumber)
        #expect(zip(seqs, seqs.dropFirst()).allSatisfy { $1 == $0 &+ 1 })

        estimate = 5_000_000
        run(ms: 3000)
        #expect(consumer.heldTemporalLayer == 2)
        h.subscriberSink.clear()
        since = big.ts
        run(ms: 990)
        got = try framesSince(since)
        #expect((29 ... 30).contains(got.count), "\(got.count) frames")
        #expect((14 ... 15).contains(got.filter { $0.temporalLayerID == 2 }.count))
    }

    @Test func theLadderCostsEachStreamsTemporalLayersFromTheirMeasuredShares() throws {
        let (h, consumer) = try harness()
        var big = LayerSource(rid: "h", ssrc: 0x10, seq: 1, ts: 0, picture: 1, packetSize: 1000, temporal: true, tl0: 0)
        var small = LayerSource(rid: "l", ssrc: 0x20, seq: 1, ts: 0, picture: 1, packetSize: 200, temporal: true, tl0: 0)
        for index in 0 ..< 90 {
            // TL0 frames twice the size of the others, as an encoder spends more on them.
            let packets = LayerSource.temporalID(big.count) == 0 ? 2 : 1
            for p in big.frame(key: index == 0, packets: packets) + small.frame(key: index == 0) { h.publish(p) }
            h.advance(ms: 33)
            h.tick()
        }
        let ladder = consumer.ladderBitrates(now: h.now)
        try #require(ladder.count == 6, "ladder \(ladder)")
        let rates = consumer.layerBitrates(now: h.now)
        // Per frame of four: TL0 2 packets, TL1 1, TL2 2 → shares 2/5, 3/5, 5/5 of each stream.
        #expect(abs(Double(ladder[3]) / Double(rates[1]) - 0.4) < 0.05, "ladder \(ladder) rates \(rates)")
        #expect(abs(Double(ladder[4]) / Double(rates[1]) - 0.6) < 0.05, "ladder \(ladder) rates \(rates)")
        #expect(ladder[5] == rates[1])
        #expect(ladder[0] < ladder[1] && ladder[1] < ladder[2] && ladder[2] < ladder[3])

        // Dynacast pauses the big layer at the publisher: it costs its last rate, its lower frame
        // rates the shares last measured (else the way back up would cost the full rate).
        consumer.producer.streams[1].toldUnneeded = true
        for _ in 0 ..< 60 {
            for p in small.frame() { h.publish(p) }
            h.advance(ms: 33)
            h.tick()
        }
        let paused = consumer.ladderBitrates(now: h.now), pausedRates = consumer.layerBitrates(now: h.now)
        try #require(pausedRates[1] > 0 && !consumer.producer.streams[1].isActive(now: h.now), "rates \(pausedRates)")
        #expect(abs(Double(paused[3]) / Double(pausedRates[1]) - 0.4) < 0.05, "ladder \(paused) rates \(pausedRates)")
        #expect(abs(Double(paused[4]) / Double(pausedRates[1]) - 0.6) < 0.05, "ladder \(paused) rates \(pausedRates)")
    }
}
