import Foundation
import RTCMedia
@testable import SRTCCore
import SRTCLab
import SRTCTestSupport
import Synchronization
import TestWait
import Testing

/// End-to-end encryption through the real server (docs/e2ee.md): what a subscriber with the
/// channel's passphrase, one with another passphrase and one without encryption each get from an
/// encrypted publisher. The server forwards the same packets to all three.
@Suite struct SDKE2EETests {
    static let width = 320, height = 180

    /// Keeps the compressed video frames a subscriber is handed (after decryption, with E2EE on).
    final class FrameTap: EncodedFrameRenderer, @unchecked Sendable {
        private let frames = Mutex<[[UInt8]]>([])
        func render(encodedFrame: EncodedMediaFrame) { frames.withLock { $0.append(encodedFrame.data) } }
        var all: [[UInt8]] { frames.withLock { $0 } }
    }

    /// Records `e2eeStateChanged` events.
    final class StateRecorder: ChannelDelegate, @unchecked Sendable {
        private let states = Mutex<[(uid: String, state: E2EEState)]>([])
        func channel(_ channel: Channel, e2eeStateChanged uid: String, state: E2EEState) { states.withLock { $0.append((uid, state)) } }
        func states(of uid: String) -> [E2EEState] { states.withLock { $0.filter { $0.uid == uid }.map(\.state) } }
    }

    /// Joins `publisher` as "pub" and `viewers` as "v0", "v1"… to `channel`, each viewer with its
    /// collector and a state recorder added first; returns the recorders, in the viewers' order.
    static func join(_ server: SDKTestServer, channel: String, publisher: SDKPeer, viewers: [SDKPeer],
                     collectors: [SDKAutoSubscriber]) async throws -> [StateRecorder] {
        let recorders = viewers.map { _ in StateRecorder() }
        for ((viewer, collector), recorder) in zip(zip(viewers, collectors), recorders) {
            viewer.channel.delegates.add(delegate: collector)
            viewer.channel.delegates.add(delegate: recorder)
        }
        try await publisher.channel.join(url: server.url, token: server.token(uid: "pub", channel: channel))
        for (index, viewer) in viewers.enumerated() {
            try await viewer.channel.join(url: server.url, token: server.token(uid: "v\(index)", channel: channel))
        }
        return recorders
    }

    @Test func encryptedMediaDecodesWithThePassphraseOnly() async throws {
        let server = try SDKTestServer()
        let shared = E2EEKeyProvider.sharedKey(passphrase: "correct horse battery staple")
        let publisher = SDKPeer(e2ee: E2EEConfiguration(keyProvider: shared))
        let keyed = SDKPeer(e2ee: E2EEConfiguration(keyProvider: shared))
        let wrong = SDKPeer(e2ee: E2EEConfiguration(keyProvider: .sharedKey(passphrase: "another passphrase")))
        let plain = SDKPeer()
        let viewers = [keyed, wrong, plain]
        let collectors = viewers.map { _ in SDKAutoSubscriber() }
        let recorders = try await SDKE2EETests.join(server, channel: "e2ee", publisher: publisher, viewers: viewers, collectors: collectors)
        let video = publisher.engine.createLocalCustomVideoTrack(desc: "camera", preset: VideoPreset(width: Self.width, height: Self.height, frameRate: 30, maxBitrate: 400_000))
        let audio = publisher.engine.createLocalCustomAudioTrack(desc: "mic")
        try await publisher.channel.publishLocalTrack(video)
        try await publisher.channel.publishLocalTrack(audio)
        let pusher = try SDKMediaPusher(video: video, audio: audio, width: Self.width, height: Self.height)
        defer { pusher.stop() }
        // What the keyed viewer decodes (plaintext) and what the server forwarded (as the viewer
        // without E2EE gets it), frame by frame.
        let (plaintext, forwarded) = (FrameTap(), FrameTap())
        for (viewer, tap) in [(keyed, plaintext), (plain, forwarded)] {
            try await eventually("\(viewer.channel.uid ?? "?") knows the camera") { viewer.channel.remoteTrack(uid: "pub", desc: "camera") != nil }
            viewer.channel.remoteTrack(uid: "pub", desc: "camera")?.add(encodedFrameRenderer: tap)
        }

        // With the passphrase: every frame number in order, and the 440 Hz tone.
        try await eventually("3 s of frames pushed") { pusher.framesPushed >= 90 }
        let pushed = pusher.framesPushed
        try await eventually(timeout: 20, "the keyed viewer decodes the frames pushed; last \(collectors[0].collector.numbers.last ?? -1)") {
            (collectors[0].collector.numbers.last ?? -1) >= pushed - 1
        }
        let numbers = collectors[0].collector.numbers
        #expect(frameGaps(numbers).ordered && numbers.count > 45, "\(numbers)")
        try await eventually(timeout: 10, "the keyed viewer hears the tone; \(String(describing: collectors[0].collector.toneFrequency))") {
            collectors[0].collector.toneFrequency.map { abs($0 - 440) < 15 } ?? false
        }
        #expect(recorders[0].states(of: "pub") == [.ok])

        // Another passphrase: told so, and nothing decoded. Without encryption: packets arrive
        // (the server forwarded them) but hold nothing a decoder reads as the pattern or the tone.
        try await eventually(timeout: 10, "the viewer with another passphrase is told decryption fails") {
            recorders[1].states(of: "pub") == [.decryptionFailed]
        }
        try await eventually(timeout: 10, "the viewer without encryption receives the encrypted packets") {
            plain.channel.remoteTrack(uid: "pub", desc: "camera").map { ($0.receiveStatistics?.packetsReceived ?? 0) > 100 } ?? false
        }
        #expect(collectors[1].collector.numbers.isEmpty && collectors[1].collector.samples.isEmpty,
                "another passphrase decodes nothing: \(collectors[1].collector.numbers.count) frames")
        #expect(collectors[2].collector.numbers.isEmpty, "the unencrypted viewer reads no frame number: \(collectors[2].collector.numbers.prefix(5))")
        #expect(collectors[2].collector.toneFrequency.map { abs($0 - 440) >= 15 } ?? true,
                "the unencrypted viewer does not hear the tone: \(String(describing: collectors[2].collector.toneFrequency))")
        #expect(recorders[2].states(of: "pub").isEmpty, "no state without encryption")

        // The server never held plaintext: no 32-byte run of any frame the publisher encoded (past
        // its clear bytes) is found in what the server forwarded, and nothing forwarded equals one.
        try await eventually("frames on both sides") { plaintext.all.count > 30 && forwarded.all.count > 30 }
        let forwardedFrames = forwarded.all
        for frame in plaintext.all.prefix(40) where frame.count >= 48 {
            let run = Array(frame[10 ..< 42])
            let leaked = forwardedFrames.contains { candidate in
                candidate == frame || (candidate.count >= 32 && (0 ... candidate.count - 32).contains { candidate[$0] == run[0] && candidate[$0 ..< $0 + 32].elementsEqual(run) })
            }
            #expect(!leaked, "a plaintext run of a \(frame.count)-byte frame was forwarded")
            if leaked { break }
        }

        // The publisher leaving takes its decryption state with it.
        let remembered = { keyed.channel.media?.e2ee?.rememberedCount }
        #expect(remembered() == 1, "the keyed viewer decrypts one participant")
        await publisher.channel.leave()
        try await eventually("the keyed viewer forgets the publisher that left; \(String(describing: remembered()))") { remembered() == 0 }

        for viewer in viewers { await viewer.channel.leave() }
        await server.stop()
    }
}

/// Per-participant keys given by the app, and a ratchet when a member is removed (docs/e2ee.md,
/// "Per-participant keys").
@Suite struct SDKE2EERatchetTests {
    @Test func aRemovedMemberDecodesNothingSentAfterTheRatchet() async throws {
        let server = try SDKTestServer()
        let providers = (0..<4).map { _ in E2EEKeyProvider.perParticipant(ratchetWindow: 1) }
        let first: [UInt8] = (0..<16).map { _ in UInt8.random(in: 0...255) }
        // The app gives alice's key to alice, bob and carol; dave gets none.
        for provider in providers.prefix(3) { provider.setKey(first, for: "alice", index: 0) }
        let peers = providers.map { SDKPeer(e2ee: E2EEConfiguration(keyProvider: $0)) }
        let (alice, viewers) = (peers[0], Array(peers.dropFirst()))
        let collectors = viewers.map { _ in SDKAutoSubscriber() }
        let recorders = viewers.map { _ in SDKE2EETests.StateRecorder() }
        for ((viewer, collector), recorder) in zip(zip(viewers, collectors), recorders) {
            viewer.channel.delegates.add(delegate: collector)
            viewer.channel.delegates.add(delegate: recorder)
        }
        for (peer, uid) in zip(peers, ["alice", "bob", "carol", "dave"]) {
            try await peer.channel.join(url: server.url, token: server.token(uid: uid, channel: "ratchet"))
        }
        let video = alice.engine.createLocalCustomVideoTrack(desc: "camera", preset: VideoPreset(width: 320, height: 180, frameRate: 30, maxBitrate: 400_000))
        try await alice.channel.publishLocalTrack(video)
        let pusher = try SDKMediaPusher(video: video, audio: nil, width: 320, height: 180)
        defer { pusher.stop() }
        for (index, name) in ["bob", "carol"].enumerated() {
            try await eventually(timeout: 20, "\(name) decodes alice") { collectors[index].collector.numbers.count > 20 }
        }
        try await eventually(timeout: 10, "dave is told the key is missing") { recorders[2].states(of: "alice") == [.missingKey] }
        #expect(collectors[2].collector.numbers.isEmpty)

        // Carol is removed: the app gives alice and bob a new key, not carol. Carol still gets the
        // packets in this test (as a member the server has not removed yet would).
        let second: [UInt8] = (0..<16).map { _ in UInt8.random(in: 0...255) }
        let ratchetedAt = pusher.framesPushed
        providers[0].setKey(second, for: "alice", index: 1)
        providers[1].setKey(second, for: "alice", index: 1)
        try await eventually(timeout: 10, "bob is told alice ratcheted") { recorders[0].states(of: "alice") == [.ok, .keyRatcheted, .ok] }
        try await eventually(timeout: 10, "carol is told the new key is missing") { recorders[1].states(of: "alice").last == .missingKey }
        let carolLast = collectors[1].collector.numbers.last ?? -1
        try await eventually(timeout: 10, "bob decodes frames after the ratchet") { (collectors[0].collector.numbers.last ?? -1) > ratchetedAt + 30 }
        #expect(frameGaps(collectors[0].collector.numbers).ordered)
        try await Task.sleep(for: .seconds(1))
        #expect(carolLast < ratchetedAt + 15, "carol decodes nothing sent under the new key: her last frame \(carolLast), ratchet at \(ratchetedAt)")
        #expect((collectors[1].collector.numbers.last ?? -1) == carolLast, "and nothing since")

        for peer in peers.reversed() { await peer.channel.leave() }
        await server.stop()
    }
}

/// End-to-end encrypted H.264 through the real server (docs/e2ee.md, "Frame format"): the SFU
/// still tells key frames from the clear SPS and IDR header, so a subscriber switches simulcast
/// layers, and only the viewer with the passphrase decodes anything.
@Suite struct SDKE2EEH264Tests {
    @Test func encryptedH264DecodesAndSwitchesLayersWithThePassphraseOnly() async throws {
        let server = try SDKTestServer()
        let shared = E2EEKeyProvider.sharedKey(passphrase: "correct horse battery staple")
        let publisher = SDKPeer(preferredVideoCodec: .h264, e2ee: E2EEConfiguration(keyProvider: shared))
        let keyed = SDKPeer(e2ee: E2EEConfiguration(keyProvider: shared))
        let wrong = SDKPeer(e2ee: E2EEConfiguration(keyProvider: .sharedKey(passphrase: "another passphrase")))
        let (subscriber, blind) = (SDKAutoSubscriber(layer: .cameraBig), SDKAutoSubscriber(layer: .cameraBig))
        let (keyedStates, wrongStates) = (SDKE2EETests.StateRecorder(), SDKE2EETests.StateRecorder())
        keyed.channel.delegates.add(delegate: subscriber)
        keyed.channel.delegates.add(delegate: keyedStates)
        wrong.channel.delegates.add(delegate: blind)
        wrong.channel.delegates.add(delegate: wrongStates)
        try await publisher.channel.join(url: server.url, token: server.token(uid: "pub", channel: "e2eeh264"))
        try await keyed.channel.join(url: server.url, token: server.token(uid: "keyed", channel: "e2eeh264"))
        try await wrong.channel.join(url: server.url, token: server.token(uid: "wrong", channel: "e2eeh264"))
        let video = publisher.engine.createLocalCustomVideoTrack(desc: "camera_big", preset: VideoPreset(width: 640, height: 360, frameRate: 30, maxBitrate: 800_000))
        try await publisher.channel.publishLocalTrack(video)
        #expect(video.info?.codec?.lowercased() == "h264" && video.info?.e2ee == true, "\(String(describing: video.info))")
        let pusher = try SDKMediaPusher(video: video, audio: nil, width: 640, height: 360)
        defer { pusher.stop() }

        try await eventually("big H.264 frames decrypted and decoded") { subscriber.collector.sizes.filter { $0 == (640, 360) }.count >= 30 }
        let big = subscriber.collector.numbers
        #expect(frameGaps(big).ordered && big.count >= 30, "\(big)")
        let receiving = keyed.channel.media?.subscribe.videoCodecs ?? []
        #expect(receiving == [.h264])
        #expect(keyedStates.states(of: "pub") == [.ok])

        // The layer switch needs the SFU to find a key frame of the small layer in encrypted packets.
        let remote = try #require(keyed.channel.remoteTrack(uid: "pub", desc: "camera_big") as? RemoteVideoTrack)
        try await keyed.channel.switchLayer(remote, to: .cameraSmall)
        try await eventually("small H.264 frames decrypted and decoded") { subscriber.collector.sizes.suffix(10).allSatisfy { $0 == (160, 90) } }
        let numbers = subscriber.collector.numbers
        #expect(numbers == numbers.sorted() && (numbers.last ?? 0) > (big.last ?? 0), "\(numbers)")

        // Another passphrase: told so, and nothing decoded from the packets the server forwards.
        try await eventually(timeout: 10, "the viewer with another passphrase is told decryption fails") {
            wrongStates.states(of: "pub") == [.decryptionFailed]
        }
        try await eventually(timeout: 10, "the viewer with another passphrase receives the packets") {
            wrong.channel.remoteTrack(uid: "pub", desc: "camera_big").map { ($0.receiveStatistics?.packetsReceived ?? 0) > 100 } ?? false
        }
        #expect(blind.collector.numbers.isEmpty && blind.collector.sizes.isEmpty, "another passphrase decoded \(blind.collector.numbers.count) frames")
        print("encrypted H.264: \(big.count) big frames (\(big.first ?? -1)…\(big.last ?? -1)), then small up to \(numbers.last ?? -1); "
              + "another passphrase decoded \(blind.collector.numbers.count)")

        pusher.stop()
        for peer in [publisher, keyed, wrong] { await peer.channel.leave() }
        await server.stop()
    }
}
