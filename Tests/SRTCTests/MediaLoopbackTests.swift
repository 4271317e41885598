import Foundation
import RTCMedia
import RTCNet
import RTCTransport
import RTCWire
import Synchronization
import TestWait
import Testing
@testable import SRTCCore

/// Collects decoded frames' pattern numbers and PCM.
final class MediaCollector: VideoRenderer, AudioRenderer, @unchecked Sendable {
    let numbers = Mutex<[Int]>([])
    let pcm = Mutex<[Float]>([])
    func render(frame: VideoFrame) {
        if let n = TestPatternReader.frameNumber(in: frame) { numbers.withLock { $0.append(n) } }
    }
    func render(pcmBuffer: AudioPCMBuffer) { pcm.withLock { $0 += pcmBuffer.channel(0) } }
    var frames: [Int] { numbers.withLock { $0 } }
    var samples: [Float] { pcm.withLock { $0 } }
}

/// The SDK's media path against a fake SFU over loopback with real ICE, DTLS and SRTP.
@Suite(.serialized) struct MediaLoopbackTests {
    let engine = SRTCEngine(independent: .init(delegateQueue: DispatchQueue(label: "media-test"), logLevel: .off,
                                                 mediaBindAddress: "127.0.0.1"))

    /// Returns once the transport's I/O thread has run every send scheduled before this call.
    static func sendsDone(_ session: PublishSession) async {
        guard let transport = session.currentTransport else { return }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in transport.execute { _ in done.resume() } }
    }

    @Test func publishedTracksArriveAsRTPTheServerCanDecode() async throws {
        let server = try FakeMediaServer()
        defer { server.stop() }
        let session = PublishSession(certificate: try DTLSCertificate(), bindAddress: "127.0.0.1", logger: engine.context.logger)
        defer { session.close() }
        let video = engine.createLocalCustomVideoTrack(desc: "canvas", preset: VideoPreset(width: 320, height: 240, frameRate: 30, maxBitrate: 400_000))
        let audio = engine.createLocalCustomAudioTrack(desc: "mic")
        let v = session.add(video), a = session.add(audio)
        #expect([v.mid, a.mid] == ["0", "1"])
        try session.applyAnswer(try server.answer(session.makeOffer()))
        session.attach(mid: v.mid)
        session.attach(mid: a.mid)
        #expect(await holds { session.transportState == .connected && server.isConnected })

        let pattern = try TestPatternGenerator(width: 320, height: 240)
        var tone = SineToneGenerator(frequency: 440)
        for n in 0..<30 {
            video.pushFrame(pattern.videoFrame(number: n))
            audio.pushAudioBuffer(tone.next(frameCount: 1_600)) // 33 ms of audio per frame
        }
        await Self.sendsDone(session) // pushFrame encodes at once; the sends run on the transport's I/O thread
        #expect(await holds { server.rtp.count >= session.sentPackets.values.reduce(0, +) })

        // Split what arrived by payload type, decode, and check content.
        let packets = try server.rtp.map { try RTPPacket(parsing: $0) }
        let videoPackets = packets.filter { $0.payloadType == 96 }
        let audioPackets = packets.filter { $0.payloadType == 111 }
        #expect(videoPackets.allSatisfy { $0.extensionValue(id: 4) == Array("0".utf8) })
        #expect(audioPackets.allSatisfy { $0.extensionValue(id: 4) == Array("1".utf8) && $0.extensionValue(id: 1) != nil })
        var assembler = VP8FrameAssembler()
        let decoder = try VP8Decoder()
        var numbers: [Int] = []
        for p in videoPackets.sorted(by: { SequenceNumber.isNewer($1.sequenceNumber, than: $0.sequenceNumber) }) {
            let out = try assembler.push(payload: p.payload, sequenceNumber: p.sequenceNumber, timestamp: p.timestamp, marker: p.marker)
            if let frame = out.frame, let picture = try decoder.decode(frame.encodedFrame) {
                numbers.append(try #require(TestPatternReader.frameNumber(in: picture)))
            }
        }
        #expect(numbers == Array(0..<30))
        #expect(audioPackets.count == 1_600 * 30 / 960) // 50 whole 20 ms frames
        let opus = try OpusDecoder()
        var samples: [Float] = []
        for p in audioPackets.sorted(by: { SequenceNumber.isNewer($1.sequenceNumber, than: $0.sequenceNumber) }) {
            samples += try opus.decode(p.payload).channel(0)
        }
        let frequency = try #require(FrequencyEstimator.zeroCrossingFrequency(Array(samples.dropFirst(960 * 5)), sampleRate: 48_000))
        #expect(abs(frequency - 440) < 10)
    }

    @Test func nackIsAnsweredFromTheCacheAndPLIMakesAKeyFrame() async throws {
        let server = try FakeMediaServer()
        defer { server.stop() }
        let session = PublishSession(certificate: try DTLSCertificate(), bindAddress: "127.0.0.1", logger: engine.context.logger)
        defer { session.close() }
        let video = engine.createLocalCustomVideoTrack(desc: "canvas", preset: VideoPreset(width: 160, height: 120, frameRate: 30, maxBitrate: 200_000))
        let section = session.add(video)
        try session.applyAnswer(try server.answer(session.makeOffer()))
        session.attach(mid: section.mid)
        #expect(await holds { session.transportState == .connected && server.isConnected })
        let pattern = try TestPatternGenerator(width: 160, height: 120)
        // The network loses the third packet the stream sends.
        let sender = try #require(session.senders(mid: section.mid).first)
        let lost = Mutex<UInt16?>(nil)
        sender.lossFilter.set { sequence in
            lost.withLock { l in
                if l == nil { l = sequence &+ 2 }
                return sequence == l
            }
        }
        for n in 0..<5 { video.pushFrame(pattern.videoFrame(number: n)) }
        await Self.sendsDone(session)
        let total = session.sentPackets.values.reduce(0, +)
        #expect(total >= 4)
        #expect(await holds { server.rtp.count == total })
        let sent = try server.rtp.map { try RTPPacket(parsing: $0) }
        let ssrc = try #require(sent.first?.ssrc)
        let missing = try #require(lost.withLock { $0 })
        #expect(!sent.contains { $0.sequenceNumber == missing })

        server.send(rtcp: [.nack(TransportLayerNack(senderSSRC: 1, mediaSSRC: ssrc, lost: [missing]))])
        #expect(await holds { server.rtp.count == sent.count + 1 })
        let resent = try RTPPacket(parsing: try #require(server.rtp.last))
        #expect(resent.sequenceNumber == missing)
        #expect(server.rtp.last == sender.cachedPacket(missing)) // the cached packet, byte for byte
        #expect(sender.retransmittedPackets == 1)

        let before = server.rtp.count, sentBefore = session.sentPackets.values.reduce(0, +)
        video.pushFrame(pattern.videoFrame(number: 5))
        await Self.sendsDone(session)
        let frame5 = session.sentPackets.values.reduce(0, +) - sentBefore
        #expect(await holds { server.rtp.count == before + frame5 }) // all of frame 5, before the PLI
        #expect(try !isKeyFrame(server.rtp[before]))
        #expect(!video.sendPipeline.keyFrameRequested) // nothing pending: the wait below sees the PLI itself
        server.send(rtcp: [.pictureLossIndication(PictureLossIndication(senderSSRC: 1, mediaSSRC: ssrc))])
        try await eventually("the PLI reached the encoder") { video.sendPipeline.keyFrameRequested }
        let afterPLI = server.rtp.count
        video.pushFrame(pattern.videoFrame(number: 6))
        #expect(await holds { server.rtp.count > afterPLI })
        #expect(try isKeyFrame(server.rtp[afterPLI]))
    }

    func isKeyFrame(_ bytes: [UInt8]) throws -> Bool {
        let packet = try RTPPacket(parsing: bytes)
        return packet.payload.withUnsafeBytes { VP8.isKeyFrame(payload: $0) }
    }

    /// The connects of offers answered one after another run in tasks of their own. At once, they
    /// open one transport (two opened with the same ICE credentials left a composite's subscribe
    /// transport unable to finish DTLS: EgressCompositeTests timed out in CI); an older offer's
    /// connect coming after a newer one changes nothing.
    @Test func connectsAtOnceOpenOneTransportAndAnOlderOfferComingLastIsSkipped() async throws {
        let server = try FakeMediaServer()
        defer { server.stop() }
        let context = engine.context
        let track = RemoteVideoTrack(info: TrackInfo(id: "TR_v", uid: "pub", kind: .video, desc: "canvas"), context: context, receiveTimeout: 3)
        for _ in 0..<20 {
            let session = SubscribeSession(certificate: try DTLSCertificate(), context: context)
            let offers = try (0..<4).map { _ in
                try session.apply(offer: server.offer([("0", .video, "TR_v", 2222)]), revision: 1) { $0 == "TR_v" ? track : nil }
            }
            // Threads released together, as the tasks of answers acknowledged at once run.
            let outcomes = Mutex<[ClientTransportSlot.Outcome?]>([])
            let ready = Atomic(0), go = Atomic(false), done = DispatchGroup()
            for offer in offers {
                done.enter()
                Thread {
                    ready.add(1, ordering: .relaxed)
                    while !go.load(ordering: .acquiring) {}
                    let outcome = try? session.connect(for: offer)
                    outcomes.withLock { $0.append(outcome) }
                    done.leave()
                }.start()
            }
            while ready.load(ordering: .relaxed) < offers.count { usleep(100) }
            go.store(true, ordering: .releasing)
            done.wait()
            let all = outcomes.withLock { $0 }
            #expect(all.filter { $0 == .opened }.count == 1 && all.filter { $0 == .kept }.count == 3, "\(all)")
            session.close()
        }

        let session = SubscribeSession(certificate: try DTLSCertificate(), context: context)
        defer { session.close() }
        let older = try session.apply(offer: server.offer([("0", .video, "TR_v", 2222)]), revision: 1) { $0 == "TR_v" ? track : nil }
        session.restartICE()
        let newer = try session.apply(offer: server.offer([("0", .video, "TR_v", 2222)]), revision: 2) { $0 == "TR_v" ? track : nil }
        #expect(older.localICE != newer.localICE)
        #expect(try session.connect(for: newer) == .opened)
        #expect(try session.connect(for: older) == nil)
        #expect(session.currentTransport?.localICE == newer.localICE)
    }

    @Test func subscribedStreamsAreDecodedInOrderWithFeedbackUpstream() async throws {
        let server = try FakeMediaServer()
        defer { server.stop() }
        let context = engine.context
        let videoTrack = RemoteVideoTrack(info: TrackInfo(id: "TR_v", uid: "pub", kind: .video, desc: "canvas"), context: context, receiveTimeout: 3)
        let audioTrack = RemoteAudioTrack(info: TrackInfo(id: "TR_a", uid: "pub", kind: .audio, desc: "mic"), context: context)
        let collector = MediaCollector()
        videoTrack.add(videoRenderer: collector)
        audioTrack.add(audioRenderer: collector)
        let session = SubscribeSession(certificate: try DTLSCertificate(), context: context)
        defer { session.close() }
        let offer = server.offer([("0", .video, "TR_v", 2222), ("1", .audio, "TR_a", 1111)])
        let result = try session.apply(offer: offer, revision: 1) { ["TR_v": videoTrack, "TR_a": audioTrack][$0] }
        #expect(result.bound.map(\.id).sorted() == ["TR_a", "TR_v"])
        try server.accept(result.answer)
        try session.connect(for: result)
        #expect(await holds { session.currentTransport?.state == .connected && server.isConnected })

        // The "server" forwards a VP8 stream and an Opus stream, holding one video packet back.
        let videoSender = RTPStreamSender(kind: .video, parameters: .init(ssrc: 2222, payloadType: 96, clockRate: 90_000, mid: "0",
                                                                         rid: nil, midID: 4, ridID: nil, audioLevelID: nil))
        let audioSender = RTPStreamSender(kind: .audio, parameters: .init(ssrc: 1111, payloadType: 111, clockRate: 48_000, mid: "1",
                                                                         rid: nil, midID: 4, ridID: nil, audioLevelID: 1))
        var config = VP8Encoder.Configuration(width: 320, height: 240)
        config.bitrate = 400_000
        let encoder = try VP8Encoder(configuration: config)
        let opus = try OpusEncoder()
        let pattern = try TestPatternGenerator(width: 320, height: 240)
        var tone = SineToneGenerator(frequency: 660)
        var withheld: [UInt8]?
        var retransmitted = false
        func nacked(_ packet: [UInt8]) -> Bool {
            guard let lost = try? RTPPacket(parsing: packet).sequenceNumber else { return false }
            return server.rtcp.contains { bytes in
                (try? RTCPCompound.parse(bytes))?.contains { if case .nack(let n) = $0 { n.lostSequenceNumbers.contains(lost) } else { false } } ?? false
            }
        }
        for n in 0..<20 {
            if let encoded = try encoder.encode(pattern.videoFrame(number: n)) {
                let (first, count) = videoSender.packetize(video: encoded)
                var packets = (0..<count).compactMap { videoSender.cachedPacket(first &+ UInt16($0)) }
                if n == 5 { withheld = packets.removeLast() } // lost on the way: the client must NACK it
                server.send(rtp: packets)
            }
            for _ in 0..<2 {
                let (first, _) = audioSender.packetize(opus: try opus.encode(tone.next(frameCount: 960)), samplePosition: UInt32(n * 1920),
                                                       level: 20, voiceActivity: true)
                server.send(rtp: [try #require(audioSender.cachedPacket(first))])
            }
            try await Task.sleep(for: .milliseconds(5))
            // Answer the NACK as a sender does, as soon as it arrives (a late answer would make the
            // receiver give up on the frame and wait for a key frame instead).
            if let packet = withheld, nacked(packet) {
                server.send(rtp: [packet])
                withheld = nil
                retransmitted = true
            }
        }
        if let packet = withheld {
            #expect(await holds { nacked(packet) })
            server.send(rtp: [packet]) // the retransmission completes frame 5
            retransmitted = true
        }
        #expect(retransmitted)
        #expect(await holds { collector.frames.count == 20 })
        #expect(collector.frames == Array(0..<20))
        #expect(videoTrack.framesDecoded == 20)
        #expect(audioTrack.audioLevel == 20)
        #expect(await holds { collector.samples.count >= 960 * 30 })
        let frequency = try #require(FrequencyEstimator.zeroCrossingFrequency(Array(collector.samples.dropFirst(960 * 3)), sampleRate: 48_000))
        #expect(abs(frequency - 660) < 10)

        // Receiver reports cover both streams.
        session.sendReports()
        #expect(await holds {
            server.rtcp.contains { bytes in
                (try? RTCPCompound.parse(bytes))?.contains {
                    if case .receiverReport(let rr) = $0 { Set(rr.reports.map(\.ssrc)) == [1111, 2222] } else { false }
                } ?? false
            }
        })
    }
}
