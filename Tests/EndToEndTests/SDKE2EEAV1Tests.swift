import Foundation
import RTCMedia
@testable import SRTCCore
import SRTCLab
import SRTCTestSupport
import TestWait
import Testing

/// End-to-end encrypted AV1 through the real server (docs/e2ee.md, "Frame format"): the OBU
/// headers and sizes stay clear, so the publisher's packetizer and the subscribers' depacketizers
/// still work and the SFU still tells key frames; only the viewer with the passphrase decodes.
@Suite(.serialized) struct SDKE2EEAV1Tests {
    @Test func encryptedAV1DecodesWithThePassphraseOnly() async throws {
        let server = try SDKTestServer()
        let shared = E2EEKeyProvider.sharedKey(passphrase: "correct horse battery staple")
        let publisher = SDKPeer(preferredVideoCodec: .av1, e2ee: E2EEConfiguration(keyProvider: shared))
        let keyed = SDKPeer(e2ee: E2EEConfiguration(keyProvider: shared))
        let wrong = SDKPeer(e2ee: E2EEConfiguration(keyProvider: .sharedKey(passphrase: "another passphrase")))
        let plain = SDKPeer()
        let viewers = [keyed, wrong, plain]
        let collectors = viewers.map { _ in SDKAutoSubscriber(layer: .cameraBig) }
        let recorders = try await SDKE2EETests.join(server, channel: "e2eeav1", publisher: publisher, viewers: viewers, collectors: collectors)
        let video = publisher.engine.createLocalCustomVideoTrack(desc: "camera_big", preset: VideoPreset(width: 640, height: 360, frameRate: 30, maxBitrate: 800_000),
                                                                 simulcast: false)
        try await publisher.channel.publishLocalTrack(video)
        #expect(video.info?.codec?.lowercased() == "av1" && video.info?.e2ee == true, "\(String(describing: video.info))")
        let pusher = try SDKMediaPusher(video: video, audio: nil, width: 640, height: 360)
        defer { pusher.stop() }

        let subscriber = collectors[0]
        try await eventually("AV1 frames decrypted and decoded") { subscriber.collector.sizes.filter { $0 == (640, 360) }.count >= 30 }
        let numbers = subscriber.collector.numbers
        #expect(frameGaps(numbers).ordered && numbers.count >= 30, "\(numbers)")
        let receiving = keyed.channel.media?.subscribe.videoCodecs ?? []
        #expect(receiving == [.av1])
        #expect(recorders[0].states(of: "pub") == [.ok])

        // Another passphrase, and no E2EE: the packets arrive, nothing decodes.
        try await eventually(timeout: 10, "the viewer with another passphrase is told decryption fails") {
            recorders[1].states(of: "pub") == [.decryptionFailed]
        }
        for viewer in [wrong, plain] {
            try await eventually(timeout: 10, "\(viewer.channel.uid ?? "?") receives the packets") {
                viewer.channel.remoteTrack(uid: "pub", desc: "camera_big").map { ($0.receiveStatistics?.packetsReceived ?? 0) > 100 } ?? false
            }
        }
        for (name, collector) in [("another passphrase", collectors[1]), ("no E2EE", collectors[2])] {
            #expect(collector.collector.numbers.isEmpty && collector.collector.sizes.isEmpty,
                    "\(name) decoded \(collector.collector.sizes.count) frames")
        }
        print("encrypted AV1: \(numbers.count) frames decoded (\(numbers.first ?? -1)…\(numbers.last ?? -1), missing \(frameGaps(numbers).missing)); "
              + "another passphrase decoded \(collectors[1].collector.sizes.count), no E2EE \(collectors[2].collector.sizes.count)")

        pusher.stop()
        for peer in [publisher] + viewers { await peer.channel.leave() }
        await server.stop()
    }
}
