import Foundation
@testable import SRTCCore
import SRTCLab
@testable import SRTCServer
import SRTCTestSupport
import TestWait
import Testing

/// End-to-end encryption across nodes (docs/e2ee.md, "What the server sees"; docs/deploy.md,
/// "Channels larger than a node"): an encrypted SDK publisher on the channel's node, subscribers
/// served by a relaying node. The relay between the nodes carries the SFrame-encrypted frames
/// byte for byte as the channel's node forwards them, and still finds key frames in them (a
/// subscriber's key-frame request and a layer switch on the relaying node pass upstream).
@Suite struct ClusterEdgeE2EETests {
    @Test func encryptedFramesCrossTheRelayUntouchedAndOnlyTheKeyedSubscriberDecodesThem() async throws {
        let url = try await TestRedis.freshURL()
        let nodes = try ["a", "b"].map { id in
            try TestServer { $0.cluster.redisURL = url; $0.cluster.nodeId = id; $0.limits.nodeChannelSubscribers = 1 }
        }
        let (a, b) = (nodes[0], nodes[1])
        let shared = E2EEKeyProvider.sharedKey(passphrase: "correct horse battery staple")
        let publisher = SDKPeer(e2ee: E2EEConfiguration(keyProvider: shared))
        // On b: the passphrase, another passphrase, a per-participant provider given no key, no
        // encryption at all. On a (the channel's node, which serves a client that reaches it
        // directly): no encryption, to see what the channel's node itself forwards.
        let keyed = SDKPeer(e2ee: E2EEConfiguration(keyProvider: shared))
        let wrong = SDKPeer(e2ee: E2EEConfiguration(keyProvider: .sharedKey(passphrase: "another passphrase")))
        let keyless = SDKPeer(e2ee: E2EEConfiguration(keyProvider: .perParticipant()))
        let plainB = SDKPeer(), plainA = SDKPeer()
        let onB = [keyed, wrong, keyless, plainB]
        let subscribers = (0..<5).map { _ in SDKAutoSubscriber(layer: .cameraBig) }
        let recorders = (0..<5).map { _ in SDKE2EETests.StateRecorder() }
        for ((peer, subscriber), recorder) in zip(zip(onB + [plainA], subscribers), recorders) {
            peer.channel.delegates.add(delegate: subscriber)
            peer.channel.delegates.add(delegate: recorder)
        }
        try await publisher.channel.join(url: a.url, token: a.token(uid: "pub", channel: "e2eeedge"))
        let video = publisher.engine.createLocalCustomVideoTrack(desc: "camera_big", preset: VideoPreset(width: 640, height: 360, frameRate: 30, maxBitrate: 800_000))
        let audio = publisher.engine.createLocalCustomAudioTrack(desc: "mic")
        try await publisher.channel.publishLocalTrack(video)
        try await publisher.channel.publishLocalTrack(audio)
        #expect(video.info?.e2ee == true && audio.info?.e2ee == true)
        for (peer, uid) in zip(onB, ["keyed", "wrong", "keyless", "plainB"]) {
            try await peer.channel.join(url: b.url, token: b.token(uid: uid, channel: "e2eeedge"))
        }
        try await plainA.channel.join(url: a.url, token: a.token(uid: "plainA", channel: "e2eeedge"))
        // What the two unencrypted viewers are handed: the frames each node forwarded.
        let (forwardedByA, forwardedByB) = (SDKE2EETests.FrameTap(), SDKE2EETests.FrameTap())
        for (peer, tap) in [(plainA, forwardedByA), (plainB, forwardedByB)] {
            try await eventually("\(peer.channel.uid ?? "?") knows the camera") { peer.channel.remoteTrack(uid: "pub", desc: "camera_big") != nil }
            peer.channel.remoteTrack(uid: "pub", desc: "camera_big")?.add(encodedFrameRenderer: tap)
        }
        let pusher = try SDKMediaPusher(video: video, audio: audio, width: 640, height: 360)
        defer { pusher.stop() }

        // With the passphrase on b: the big layer's frame numbers in order, and the 440 Hz tone.
        try await eventually("3 s of frames pushed") { pusher.framesPushed >= 90 }
        try await expectDecodedInOrder(subscribers[0].collector, through: pusher.framesPushed - 1, moreThan: 45, "the keyed subscriber on b")
        #expect(subscribers[0].collector.sizes.suffix(10).allSatisfy { $0 == (640, 360) })
        try await eventually(timeout: 10, "the keyed subscriber on b hears the tone; \(String(describing: subscribers[0].collector.toneFrequency))") {
            subscribers[0].collector.toneFrequency.map { abs($0 - 440) < 15 } ?? false
        }
        // Served by b, which relays the channel from a once.
        #expect(b.app.edges.count == 1 && a.app.edges.count == 0)

        // Untouched: what b forwarded are frames a forwarded, byte for byte, and every one the
        // keyed subscriber got authenticated (SFrame's tag covers the header and the ciphertext;
        // RFC 9605 §4.4.3), so it only ever reported ok.
        // b's latest frames, then a second for a's copies of them (a forwards them before b).
        try await eventually("both nodes forwarded frames") { forwardedByA.all.count > 60 && forwardedByB.all.count > 60 }
        let fromB = forwardedByB.all.suffix(50)
        try await Task.sleep(for: .seconds(1))
        let fromA = Set(forwardedByA.all)
        let same = fromB.filter(fromA.contains).count
        #expect(same == fromB.count, "\(same) of \(fromB.count) frames b forwarded equal frames a forwarded")
        #expect(recorders[0].states(of: "pub") == [.ok])

        // A layer switch on b: the track crosses between the nodes at the best layer one of b's
        // subscribers asks for (docs/deploy.md), so all of them move to camera_small; the relay
        // then needs a key frame of the small layer found in encrypted packets, asked for across it.
        let big = subscribers[0].collector.numbers
        for peer in onB {
            let remote = try #require(peer.channel.remoteTrack(uid: "pub", desc: "camera_big") as? RemoteVideoTrack)
            try await peer.channel.switchLayer(remote, to: .cameraSmall)
        }
        try await eventually(timeout: 15, "small frames decrypted and decoded on b") { subscribers[0].collector.sizes.suffix(10).allSatisfy { $0 == (160, 90) } }
        let numbers = subscribers[0].collector.numbers
        // Non-decreasing: the small layer's key frame the switch waits for may be a picture the
        // big layer already showed (as SDKE2EEH264Tests allows on one node).
        #expect(numbers == numbers.sorted() && (numbers.last ?? 0) > (big.last ?? 0), "\(numbers)")
        #expect(recorders[0].states(of: "pub") == [.ok])

        // Without the key on b: told so, the packets arrive, nothing decodes.
        try await eventually(timeout: 10, "another passphrase on b is told decryption fails") { recorders[1].states(of: "pub") == [.decryptionFailed] }
        try await eventually(timeout: 10, "no key on b is told the key is missing") { recorders[2].states(of: "pub") == [.missingKey] }
        for (peer, name) in [(wrong, "wrong"), (keyless, "keyless")] {
            try await eventually(timeout: 10, "\(name) receives the encrypted packets") {
                peer.channel.remoteTrack(uid: "pub", desc: "camera_big").map { ($0.receiveStatistics?.packetsReceived ?? 0) > 100 } ?? false
            }
        }
        for (index, name) in [(1, "another passphrase"), (2, "no key"), (3, "no encryption")] {
            let collector = subscribers[index].collector
            #expect(collector.numbers.isEmpty, "\(name) read \(collector.numbers.count) frame numbers")
            #expect(collector.toneFrequency.map { abs($0 - 440) >= 15 } ?? true, "\(name) heard \(String(describing: collector.toneFrequency)) Hz")
        }
        #expect(recorders[3].states(of: "pub").isEmpty, "no state without encryption")
        print("E2EE across nodes: keyed on b decoded \(big.count) big frames (\(big.first ?? -1)…\(big.last ?? -1)), then small up to "
              + "\(numbers.last ?? -1), tone \(subscribers[0].collector.toneFrequency.map(fmt) ?? "-") Hz; \(same) of \(fromB.count) frames "
              + "b forwarded equal a's; wrong \(recorders[1].states(of: "pub")), keyless \(recorders[2].states(of: "pub"))")

        pusher.stop()
        for peer in (onB + [plainA, publisher]) { await peer.channel.leave() }
        for node in nodes.reversed() { await node.stop() }
    }
}
