import Foundation
import TestWait
import Testing
import RTCMedia
import RTCWire
import SRTCProtocol
import SRTCTestSupport
import RTCNet

/// Media through the whole server: signaling, SDP, ICE-lite, DTLS-SRTP and the SFU, with real
/// Opus and VP8, checked at the receiving end (docs/protocol.md, issue 4's end-to-end list).
@Suite(.serialized) struct ServerMediaTests {
    static let layers = [MediaTestClient.VideoLayer(rid: "h", desc: TrackDescName.cameraBig, ssrc: 0x0BEE_F001, width: 640, height: 360),
                         MediaTestClient.VideoLayer(rid: "l", desc: TrackDescName.cameraSmall, ssrc: 0x0BEE_F002, width: 320, height: 180)]

    /// Decodes a subscriber's video packets and returns (frame number, width, key frame) per decoded frame.
    static func decode(_ packets: [RTPPacket]) throws -> [(number: Int?, width: Int, key: Bool)] {
        var assembler = VP8FrameAssembler()
        let decoder = try VP8Decoder()
        var out: [(Int?, Int, Bool)] = []
        for p in packets {
            let output = try assembler.push(payload: p.payload, sequenceNumber: p.sequenceNumber, timestamp: p.timestamp, marker: p.marker)
            guard let frame = output.frame, let decoded = try decoder.decode(frame.encodedFrame) else { continue }
            out.append((TestPatternReader.frameNumber(in: decoded), decoded.width, frame.isKeyFrame))
        }
        return out
    }

    /// `true` when every packet follows the one before it by exactly one (wrap-aware).
    static func contiguous(_ packets: [RTPPacket]) -> Bool {
        zip(packets, packets.dropFirst()).allSatisfy { $1.sequenceNumber == $0.sequenceNumber &+ 1 }
    }

    @Test func threeParticipantsReceiveRewrittenOpusAndSimulcastVP8() async throws {
        let server = try TestServer()
        let alice = try await MediaTestClient(server: server, uid: "alice", channel: "media")
        let bob = try await MediaTestClient(server: server, uid: "bob", channel: "media")
        let carol = try await MediaTestClient(server: server, uid: "carol", channel: "media")
        let tracks = try await alice.publish(video: Self.layers)
        let audio = try #require(tracks.first { $0.kind == .audio })
        let video = try #require(tracks.first { $0.kind == .video })
        #expect(video.layers.map(\.desc) == ["camera_big", "camera_small"])
        let added = try await bob.signal.event { if case .trackAdded(let t) = $0, t.track.kind == .video { return t }; return nil }
        #expect(added.uid == "alice" && added.track.id == video.id)

        for client in [bob, carol] { try await client.subscribe(audio.id) }
        try await bob.subscribe(video.id, layer: TrackDescName.cameraSmall)
        try await carol.subscribe(video.id, layer: TrackDescName.cameraBig)
        let publisher = try MediaTestPublisher(client: alice, video: Self.layers)
        try await publisher.run(seconds: 3)
        for client in [bob, carol] { try await client.waitForMediaToSettle() }

        for (client, width) in [(bob, 320), (carol, 640)] {
            let endpoint = try #require(client.subscribeEndpoint)
            let audioSSRC = try #require(client.announcedSSRC(of: audio.id))
            let videoSSRC = try #require(client.announcedSSRC(of: video.id))
            #expect(audioSSRC != publisher.audioSSRC && videoSSRC != Self.layers[0].ssrc && videoSSRC != Self.layers[1].ssrc)
            let audioPackets = endpoint.packets(ssrc: audioSSRC)
            let videoPackets = endpoint.packets(ssrc: videoSSRC)
            // ~150 audio packets were sent; nearly all arrive, numbered without gaps across the 16-bit wrap.
            #expect(audioPackets.count > 120, "\(client.uid) got \(audioPackets.count) audio packets")
            #expect(Self.contiguous(audioPackets))
            #expect(zip(audioPackets, audioPackets.dropFirst()).allSatisfy { $1.timestamp &- $0.timestamp == 960 })
            #expect(audioPackets.allSatisfy { $0.payloadType == 111 })
            // Video: one layer only, contiguous, frames decode in order at that layer's size.
            #expect(Self.contiguous(videoPackets), "\(client.uid) video sequence has gaps")
            let frames = try Self.decode(videoPackets)
            #expect(frames.count > 40, "\(client.uid) decoded \(frames.count) frames")
            #expect(frames.allSatisfy { $0.width == width })
            let numbers = frames.compactMap(\.number)
            #expect(numbers.count > 40 && numbers == numbers.sorted() && Set(numbers).count == numbers.count)
            #expect(frames.first?.key == true)
        }
        // Opus arrives intact: the tone decodes back to 440 Hz.
        let bobAudioSSRC = try #require(bob.announcedSSRC(of: audio.id))
        let bobAudio = try #require(bob.subscribeEndpoint?.packets(ssrc: bobAudioSSRC))
        let opus = try OpusDecoder()
        var samples: [Float] = []
        for p in bobAudio.dropFirst(10).prefix(50) { samples += try opus.decode(p.payload).floatSamples }
        let hz = try #require(FrequencyEstimator.zeroCrossingFrequency(samples, sampleRate: 48_000))
        #expect(abs(hz - 440) < 10, "decoded tone is \(hz) Hz")
        for c in [alice, bob, carol] { c.close() }
        await server.stop()
    }

    /// The room's media router is made once even when two first publishes race (the room actor
    /// awaits its creation; the second used to try again, fail and answer `internal_error`).
    @Test func twoParticipantsPublishingAtOnceIntoANewRoomBothGetMedia() async throws {
        let server = try TestServer()
        let alice = try await MediaTestClient(server: server, uid: "alice", channel: "race")
        let bob = try await MediaTestClient(server: server, uid: "bob", channel: "race")
        async let aliceTracks = alice.publish(audioSSRC: 0xA11C_0001)
        async let bobTracks = bob.publish(audioSSRC: 0xB0B0_0001)
        let (a, b) = try await (aliceTracks, bobTracks)
        #expect(a.map(\.kind) == [.audio])
        #expect(b.map(\.kind) == [.audio])
        await server.stop()
    }

    @Test func layerSwitchLandsOnAKeyFrameAndIsAnnounced() async throws {
        let server = try TestServer()
        let alice = try await MediaTestClient(server: server, uid: "alice", channel: "switch")
        let bob = try await MediaTestClient(server: server, uid: "bob", channel: "switch")
        let tracks = try await alice.publish(audioSSRC: nil, video: Self.layers)
        let video = try #require(tracks.first)
        try await bob.subscribe(video.id, layer: TrackDescName.cameraSmall)
        let publisher = try MediaTestPublisher(client: alice, audioSSRC: nil, video: Self.layers)
        try await publisher.run(seconds: 1.5)
        #expect(try await bob.signal.request(.setLayer(SubscribeRequest(trackId: video.id, layer: TrackDescName.cameraBig))) == .success(.empty))
        try await publisher.run(seconds: 1.5)
        try await bob.waitForMediaToSettle()

        let switched = try await bob.signal.event { e -> LayerSwitchedInfo? in
            if case .layerSwitched(let info) = e, info.layer == TrackDescName.cameraBig { return info }
            return nil
        }
        #expect(switched.trackId == video.id && switched.uid == "alice" && switched.previous == TrackDescName.cameraSmall && switched.cause == "requested")
        let videoSSRC = try #require(bob.announcedSSRC(of: video.id))
        let packets = try #require(bob.subscribeEndpoint?.packets(ssrc: videoSSRC))
        #expect(Self.contiguous(packets), "sequence numbers jump at the switch")
        let frames = try Self.decode(packets)
        let firstBig = try #require(frames.firstIndex { $0.width == 640 })
        #expect(firstBig > 0 && frames[firstBig].key, "the switch must land on a key frame")
        #expect(frames[..<firstBig].allSatisfy { $0.width == 320 } && frames[firstBig...].allSatisfy { $0.width == 640 })
        let numbers = frames.compactMap(\.number)
        #expect(numbers == numbers.sorted())
        #expect(publisher.keyFrameRequests[Self.layers[0].ssrc, default: 0] >= 1)
        alice.close(); bob.close()
        await server.stop()
    }

    @Test func packetLostOnTheWayToTheSubscriberIsRetransmittedOnNACK() async throws {
        let server = try TestServer()
        let alice = try await MediaTestClient(server: server, uid: "alice", channel: "nack")
        let bob = try await MediaTestClient(server: server, uid: "bob", channel: "nack")
        let relay = try LossyRelay(server: try #require(SocketAddress(ip: "127.0.0.1", port: server.app.udpPort)))
        defer { relay.stop() }
        bob.subscribeRelay = relay
        let tracks = try await alice.publish(audioSSRC: nil, video: [Self.layers[1]])
        let video = try #require(tracks.first)
        try await bob.subscribe(video.id)
        let endpoint = try #require(bob.subscribeEndpoint)
        let ssrc = try #require(bob.announcedSSRC(of: video.id))
        // The network loses the 30th packet of the stream.
        let counter = Counter()
        relay.drop.set { bytes in LossyRelay.rtpHeader(bytes)?.ssrc == ssrc && counter.next() == 30 }
        let publisher = try MediaTestPublisher(client: alice, audioSSRC: nil, video: [Self.layers[1]])
        try await publisher.run(seconds: 1.5)
        let datagram = try #require(relay.dropped.withLock { $0.first })
        let lost = try #require(datagram.withUnsafeBytes { LossyRelay.rtpHeader($0) }).seq
        #expect(!endpoint.packets(ssrc: ssrc).contains { $0.sequenceNumber == lost })
        endpoint.send(rtcp: [.nack(TransportLayerNack(senderSSRC: 0x5EED, mediaSSRC: ssrc, lost: [lost]))])
        #expect(await endpoint.waitFor { log in log.rtp.contains { $0.ssrc == ssrc && $0.sequenceNumber == lost } })
        // It came on the RTX stream the answer kept (RFC 4588; the endpoint logs what it repairs).
        #expect(endpoint.rtxResends.load(ordering: .relaxed) >= 1)
        // With the retransmission in place the stream is whole: every frame decodes, in order.
        let packets = endpoint.packets(ssrc: ssrc).sorted { SequenceNumber.distance(from: $1.sequenceNumber, to: $0.sequenceNumber) < 0 }
        #expect(Self.contiguous(packets))
        let numbers = try Self.decode(packets).compactMap(\.number)
        #expect(numbers.count > 30 && zip(numbers, numbers.dropFirst()).allSatisfy { $1 == $0 + 1 })
        alice.close(); bob.close()
        await server.stop()
    }

    @Test func activeSpeakerOrderFollowsTheAudioLevels() async throws {
        let server = try TestServer()
        let alice = try await MediaTestClient(server: server, uid: "alice", channel: "speakers")
        let carol = try await MediaTestClient(server: server, uid: "carol", channel: "speakers")
        let listener = try await MediaTestClient(server: server, uid: "listener", channel: "speakers")
        _ = try await alice.publish(audioSSRC: 0xA11CE)
        _ = try await carol.publish(audioSSRC: 0xCA201)
        let a = try MediaTestPublisher(client: alice, audioSSRC: 0xA11CE)
        let c = try MediaTestPublisher(client: carol, audioSSRC: 0xCA201, toneHz: 660)
        a.audioLevel = 10   // -10 dBov: loud
        c.audioLevel = 40   // -40 dBov: quieter
        try await Self.runTogether(a, c, seconds: 1.5)
        let first = try await listener.signal.event { e -> [String]? in
            if case .activeSpeakers(let s) = e, s.speakers.count == 2 { return s.speakers.map(\.uid) }
            return nil
        }
        #expect(first == ["alice", "carol"])
        a.audioLevel = 45
        c.audioLevel = 5
        try await Self.runTogether(a, c, seconds: 2)
        let speakerLists = listener.signal.events.compactMap { e -> [String]? in
            if case .activeSpeakers(let s) = e { return s.speakers.map(\.uid) }
            return nil
        }
        #expect(speakerLists.last == ["carol", "alice"], "speaker lists: \(speakerLists)")
        // Silence empties the list.
        a.audioLevel = 127
        c.audioLevel = 127
        try await Self.runTogether(a, c, seconds: 1.5)
        let quiet = try await listener.signal.event { e -> Bool? in
            if case .activeSpeakers(let s) = e, s.speakers.isEmpty { return true }
            return nil
        }
        #expect(quiet)
        for client in [alice, carol, listener] { client.close() }
        await server.stop()
    }

    static func runTogether(_ a: MediaTestPublisher, _ b: MediaTestPublisher, seconds: Double) async throws {
        async let x: Void = a.run(seconds: seconds, video: false)
        async let y: Void = b.run(seconds: seconds, video: false)
        _ = try await (x, y)
    }
}

/// A thread-safe counter for drop filters.
final class Counter: @unchecked Sendable {
    private var value = 0
    private let lock = NSLock()
    func next() -> Int {
        lock.lock(); defer { lock.unlock() }
        value += 1
        return value
    }
}

/// Sessions, quality and lifecycle with media flowing.
@Suite(.serialized) struct ServerMediaSessionTests {
    @Test func droppedWebSocketResumesWithTracksIntactAndMediaFlowing() async throws {
        let server = try TestServer(grace: 10)
        let alice = try await MediaTestClient(server: server, uid: "alice", channel: "resume-media")
        let bob = try await MediaTestClient(server: server, uid: "bob", channel: "resume-media")
        let tracks = try await alice.publish(video: [ServerMediaTests.layers[1]])
        let video = try #require(tracks.first { $0.kind == .video })
        try await bob.subscribe(video.id)
        let publisher = try MediaTestPublisher(client: alice, video: [ServerMediaTests.layers[1]])
        try await publisher.run(seconds: 1)
        // Alice's signaling drops; her media keeps going; she resumes with the same session.
        alice.signal.close()
        try await publisher.run(seconds: 1)
        let again = try await TestSignalClient(url: server.wsURL)
        let resumed = try await again.join(token: server.token(uid: "alice", channel: "resume-media"), sessionId: alice.joined.sessionId)
        #expect(resumed.resumed && resumed.me.tracks.map(\.id).sorted() == tracks.map(\.id).sorted())
        let before = bob.subscribeEndpoint?.packets(ssrc: try #require(bob.announcedSSRC(of: video.id))).count ?? 0
        try await publisher.run(seconds: 1)
        let after = bob.subscribeEndpoint?.packets(ssrc: try #require(bob.announcedSSRC(of: video.id))).count ?? 0
        #expect(after > before + 10, "media stopped across the resume (\(before) → \(after))")
        #expect(!bob.signal.events.contains { e in
            switch e {
            case .userLeft, .trackRemoved, .subscriptionEnded: return true
            default: return false
            }
        })
        again.close(); alice.close(); bob.close()
        await server.stop()
    }

    @Test func iceRestartRecoversAChangedMediaPath() async throws {
        let server = try TestServer()
        let serverAddress = try #require(SocketAddress(ip: "127.0.0.1", port: server.app.udpPort))
        let pathA = try LossyRelay(server: serverAddress), pathB = try LossyRelay(server: serverAddress)
        defer { pathA.stop(); pathB.stop() }
        let alice = try await MediaTestClient(server: server, uid: "alice", channel: "restart")
        let bob = try await MediaTestClient(server: server, uid: "bob", channel: "restart")
        alice.publishRelay = pathA
        let tracks = try await alice.publish(video: [ServerMediaTests.layers[1]])
        let audio = try #require(tracks.first { $0.kind == .audio })
        try await bob.subscribe(audio.id)
        let ssrc = try #require(bob.announcedSSRC(of: audio.id))
        let publisher = try MediaTestPublisher(client: alice, video: [ServerMediaTests.layers[1]])
        func received() -> Int { bob.subscribeEndpoint?.packets(ssrc: ssrc).count ?? 0 }
        try await publisher.run(seconds: 1)
        #expect(received() > 30)
        // The network path breaks: nothing gets through any more.
        pathA.broken.withLock { $0 = true }
        try await publisher.run(seconds: 0.5)
        let stalled = received()
        try await publisher.run(seconds: 0.5)
        #expect(received() - stalled < 5, "media still flowed over the broken path")
        // ICE restart over a new path: new credentials, new address, same DTLS and SRTP.
        try await alice.restartPublishICE(via: pathB)
        try await publisher.run(seconds: 1.5)
        #expect(received() - stalled > 40, "media did not resume after the ICE restart (\(received() - stalled) packets)")
        alice.close(); bob.close()
        await server.stop()
    }

    @Test func qualityReportsArriveAndLeavingRemovesTracksForSubscribers() async throws {
        let server = try TestServer { $0.media.qualityIntervalSeconds = 0.5 }
        let alice = try await MediaTestClient(server: server, uid: "alice", channel: "quality")
        let bob = try await MediaTestClient(server: server, uid: "bob", channel: "quality")
        let tracks = try await alice.publish(video: [ServerMediaTests.layers[1]])
        for t in tracks { try await bob.subscribe(t.id) }
        let publisher = try MediaTestPublisher(client: alice, video: [ServerMediaTests.layers[1]])
        try await publisher.run(seconds: 2)
        let report = try await alice.signal.event { e -> QualityReport? in
            if case .qualityReport(let r) = e, r.upstream.packets > 0 { return r }
            return nil
        }
        #expect(report.uid == "alice" && report.upstream.bitrateBps > 0)
        let down = try await bob.signal.event { e -> QualityReport? in
            if case .qualityReport(let r) = e, r.downstream.packets > 0 { return r }
            return nil
        }
        #expect(down.uid == "bob" && down.downstream.bitrateBps > 0)

        #expect(try await alice.signal.request(.leave) == .success(.empty))
        var removed: [String] { bob.signal.events.compactMap { if case .trackRemoved(let t) = $0 { return t.track.id }; return nil } }
        try await eventually("every track removed") { removed.count >= tracks.count }
        #expect(Set(removed) == Set(tracks.map(\.id)))
        let ended = bob.signal.events.compactMap { if case .subscriptionEnded(let s) = $0 { return s.trackId }; return nil }
        #expect(Set(ended) == Set(tracks.map(\.id)))
        alice.close(); bob.close()
        await server.stop()
    }

    @Test func tracksPerUserLimitAndBadOffersGetClearErrors() async throws {
        let server = try TestServer { $0.limits.maxTracksPerUser = 1 }
        let alice = try await MediaTestClient(server: server, uid: "alice", channel: "limits")
        let tooMany = try await alice.signal.request(.publish(PublishRequest(sdp: "v=0", tracks: [
            PublishTrack(mid: "0", kind: .audio, desc: "mic"), PublishTrack(mid: "1", kind: .video, desc: "camera_big")])))
        #expect(tooMany.errorCode == .limitReached)
        let garbage = try await alice.signal.request(.publish(PublishRequest(sdp: "not sdp", tracks: [PublishTrack(mid: "0", kind: .audio, desc: "mic")])))
        #expect(garbage.errorCode == .invalidParameter)
        let wrongMid = try await alice.signal.request(.publish(PublishRequest(
            sdp: "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n", tracks: [PublishTrack(mid: "7", kind: .audio, desc: "mic")])))
        #expect(wrongMid.errorCode == .invalidParameter)
        #expect(try await alice.signal.request(.subscriberAnswer(SessionDescriptionMessage(sdp: "v=0", revision: 9))).errorCode == .wrongState)
        // The session survives all of it and can still publish.
        let tracks = try await alice.publish(video: [])
        #expect(tracks.count == 1)
        alice.close()
        await server.stop()
    }
}

