import RTCWire
import Testing
@testable import SFU

/// Video without simulcast is one layer to the allocation (docs/network.md, "One layer pauses
/// too"): below its measured rate plus the audio it pauses with the same event as a simulcast
/// consumer below its smallest layer, the audio keeps flowing, the transport probes on its stream,
/// and it resumes by itself on a key frame it asks for. And a consumer stopped mid-frame still
/// carries probe padding once its source moved on.
struct SingleLayerPauseTests {
    typealias H = SFUHarness

    /// 30 fps VP8 in 4 packets of 1200 bytes (≈ 1.2 Mbit/s) on one stream, and Opus every 20 ms,
    /// ticking the SFU every 20 ms; the next video frame is a key frame when `key` is set.
    struct Feed {
        let h: SFUHarness
        var seq: UInt16 = 1, ts: UInt32 = 0, picture: UInt16 = 1
        var audioSeq: UInt16 = 1, audioTS: UInt32 = 0
        var key = true
        var step = 0

        mutating func frame(packets: Int = 4) -> [[UInt8]] {
            var out: [[UInt8]] = []
            for index in 0 ..< packets {
                out.append(PacketFactory.rtp(pt: 96, seq: seq, ts: ts, ssrc: 0x2222, marker: index == packets - 1,
                                             payload: PacketFactory.vp8(pictureID: picture, start: index == 0, keyFrame: key, size: 1200)))
                seq &+= 1
            }
            key = false
            ts &+= 3000
            picture = (picture &+ 1) & 0x7FFF
            return out
        }

        mutating func run(ms: Int) {
            for _ in 0 ..< ms / 10 {
                if step % 3 == 0 { for p in frame() { h.publish(p) } }
                if step % 2 == 0 {
                    h.publish(SimpleForwardingTests.opus(audioSeq, ts: audioTS))
                    audioSeq &+= 1
                    audioTS &+= 960
                }
                h.advance(ms: 10)
                if step % 2 == 1 { h.tick() }
                step += 1
            }
        }

        func remb(_ bitrate: UInt64) {
            h.subscriberRTCP([.remb(ReceiverEstimatedMaxBitrate(senderSSRC: 0xB0B, bitrate: bitrate, ssrcs: [0xAAAA, 0xBBBB]))])
        }
    }

    func harness() throws -> SFUHarness {
        let h = try SFUHarness()
        try h.core.produce("cam", transport: "alice/pub", kind: .video, parameters: FeedbackTests.videoProducer(), muted: false)
        try h.core.produce("mic", transport: "alice/pub", kind: .audio, parameters: H.audioProducer(), muted: false)
        _ = try h.core.consume("bob/cam", transport: "bob/sub", producer: "cam", parameters: H.subscriberParameters(kind: .video),
                               preferredLayer: nil, paused: false, now: h.now)
        _ = try h.core.consume("bob/mic", transport: "bob/sub", producer: "mic",
                               parameters: H.subscriberParameters(kind: .audio, mid: "s4", ssrc: 0xBBBB),
                               preferredLayer: nil, paused: false, now: h.now)
        return h
    }

    @Test func singleLayerVideoPausesBelowItsRateProbesAndResumesOnAKeyFrameWhileAudioFlows() throws {
        let h = try harness()
        var feed = Feed(h: h)
        feed.remb(5_000_000)
        feed.run(ms: 4000)
        let video = try #require(h.core.consumers["bob/cam"] as? SimpleConsumer)
        let audio = try #require(h.core.consumers["bob/mic"] as? SimpleConsumer)
        #expect(video.isAllocated && !audio.isAllocated)
        #expect(h.log.layerSwitches.isEmpty)
        var media: Int { h.subscriberSink.packets.filter { $0.ssrc == 0xAAAA && !$0.payload.isEmpty }.count }
        var padding: Int { h.subscriberSink.packets.filter { $0.ssrc == 0xAAAA && $0.payload.isEmpty }.count }
        var audioSent: Int { h.subscriberSink.packets.filter { $0.ssrc == 0xBBBB }.count }
        #expect(media > 300)

        // 300 kbit/s carries the audio but not the 1.2 Mbit/s video: paused after the hold, with
        // the simulcast pause's event (the stream's name: the room names it by the track's desc).
        feed.remb(300_000)
        var pausedAt: Int64?
        for _ in 0 ..< 40 where pausedAt == nil {
            feed.remb(300_000)
            feed.run(ms: 100)
            if video.isPausedForBandwidth { pausedAt = h.now }
        }
        #expect(pausedAt != nil, "not paused at 300 kbit/s")
        #expect(h.log.layerSwitches == [LayerSwitch(layer: "none", previous: "", cause: .bandwidth)])
        #expect(!audio.isPausedForBandwidth)
        // What the pacer held back before the pause leaves (at the 300 kbit/s estimate).
        for _ in 0 ..< 40 where !h.subscriber.pacer.isEmpty {
            feed.remb(300_000)
            feed.run(ms: 100)
        }
        #expect(h.subscriber.pacer.isEmpty)
        let mediaPaused = media, audioPaused = audioSent, paddingPaused = padding
        for _ in 0 ..< 40 {
            feed.remb(300_000)
            feed.run(ms: 100)
        }
        // 4 s paused: no video, the audio at its 50 packets a second, and probes on the paused
        // video's stream (a probe starts 2 s after the pause).
        #expect(media == mediaPaused)
        #expect(audioSent - audioPaused >= 195, "\(audioSent - audioPaused) audio packets in 4 s while paused")
        #expect(padding > paddingPaused, "no probe padding while paused")
        #expect(video.isPausedForBandwidth)

        // The link is back: the probe's REMB proves it, the video asks for a key frame and
        // resumes on it with a switch from `none`.
        h.publisherSink.clear()
        for _ in 0 ..< 60 where video.isPausedForBandwidth {
            feed.remb(5_000_000)
            feed.run(ms: 100)
        }
        #expect(!video.isPausedForBandwidth)
        #expect(h.publisherSink.rtcpPackets.contains(.pictureLossIndication(PictureLossIndication(senderSSRC: h.publisher.rtcpSSRC, mediaSSRC: 0x2222))))
        #expect(media == mediaPaused, "video before the key frame")
        feed.key = true
        feed.run(ms: 200)
        #expect(h.log.layerSwitches.last == LayerSwitch(layer: "", previous: "none", cause: .bandwidth))
        #expect(media > mediaPaused)
        // One stream without a gap: media, the probe's padding, media again.
        let seqs = h.subscriberSink.packets.filter { $0.ssrc == 0xAAAA }.map(\.sequenceNumber)
        #expect(zip(seqs, seqs.dropFirst()).allSatisfy { $1 == $0 &+ 1 })
    }

    /// Paused while its frame's marker packet was lost upstream: once the source sends a newer
    /// frame, the unfinished one is given up (a late resend of it is not forwarded) and padding
    /// may follow it; before, none may (padding only between frames). The same for a single
    /// stream and a simulcast layer (`Consumer.finishFrame`).
    @Test(arguments: [false, true]) func aConsumerPausedMidFrameTakesPaddingOnceItsSourceMovedOn(simulcast: Bool) throws {
        let h = try simulcast ? SFUHarness() : harness()
        if simulcast {
            try h.core.produce("cam", transport: "alice/pub", kind: .video, parameters: H.simulcastProducer(), muted: false)
            _ = try h.core.consume("bob/cam", transport: "bob/sub", producer: "cam", parameters: H.subscriberParameters(kind: .video),
                                   preferredLayer: "camera_big", paused: false, now: h.now)
        }
        var feed = Feed(h: h)
        var big = LayerSource(rid: "h", ssrc: 0x10, seq: 1, ts: 0, picture: 1)
        func frame(packets: Int) -> [[UInt8]] {
            simulcast ? big.frame(key: big.seq == 1, packets: packets) : feed.frame(packets: packets)
        }
        for p in frame(packets: 2) { h.publish(p) }
        h.advance(ms: 33)
        h.tick()
        let unfinished = frame(packets: 3)
        h.publish(unfinished[0])
        let video = try #require(h.core.consumers["bob/cam"] as? any LayeredConsumer)
        video.pauseForBandwidth(now: h.now)
        #expect(h.log.layerSwitches.last == LayerSwitch(layer: "none", previous: simulcast ? "camera_big" : "", cause: .bandwidth))
        h.publish(unfinished[1])  // the frame goes on (its marker packet is lost)
        #expect(!video.atFrameBoundary)
        #expect(!video.sendPadding(255, now: h.now))
        h.advance(ms: 33)
        for p in frame(packets: 4) { h.publish(p) }  // the source's next frame: not forwarded
        #expect(video.atFrameBoundary)
        h.publish(unfinished[2])  // the lost packet resent upstream, late: not forwarded
        #expect(h.subscriberSink.packets.count == 4)
        #expect(video.sendPadding(255, now: h.now))
        let out = h.subscriberSink.packets
        #expect(out.count == 5 && out[4].payload.isEmpty && out[4].sequenceNumber == out[3].sequenceNumber &+ 1)
        // The transport's probe takes it as its source too.
        h.subscriber.startProbe(rate: 2_000_000, now: h.now)
        h.advance(ms: 20)
        h.subscriber.sendProbePackets(now: h.now)
        #expect(h.subscriberSink.packets.count > 5)
        h.subscriber.stopProbe()
    }
}
