import Foundation
import RTCMedia
@testable import SRTCCore
import SRTCLab
import SRTCTestSupport
import TestWait
import Testing

/// A two-layer AV1 or VP9 track under E2EE is one L2T3_KEY stream (docs/e2ee.md, "AV1 with
/// spatial layers" and "VP9"): each layer frame is its own ciphertext, the server forwards the big
/// layer to one keyed viewer and the small to another by what stays clear (AV1: the Dependency
/// Descriptors; VP9: the payload descriptors), and each finds its layer frames (AV1: by the clear
/// OBU headers; VP9: by the descriptors' B bits), decrypts them apart and decodes its own size with
/// the numbers in order; a viewer with another passphrase decodes nothing.
@Suite(.serialized) struct SDKE2EESVCTests {
    @Test(arguments: ["av1", "vp9"])
    func encryptedSVCGivesEachKeyedViewerItsLayer(codecName: String) async throws {
        let codec = try #require(VideoCodec(encodingName: codecName))
        let server = try SDKTestServer()
        let shared = E2EEKeyProvider.sharedKey(passphrase: "correct horse battery staple")
        let publisher = SDKPeer(preferredVideoCodec: codec, e2ee: E2EEConfiguration(keyProvider: shared))
        let big = SDKPeer(e2ee: E2EEConfiguration(keyProvider: shared)), small = SDKPeer(e2ee: E2EEConfiguration(keyProvider: shared))
        let wrong = SDKPeer(e2ee: E2EEConfiguration(keyProvider: .sharedKey(passphrase: "another passphrase")))
        let viewers = [big, small, wrong]
        let collectors = [SDKAutoSubscriber(layer: .cameraBig), SDKAutoSubscriber(layer: .cameraSmall), SDKAutoSubscriber(layer: .cameraBig)]
        let recorders = try await SDKE2EETests.join(server, channel: "e2ee\(codecName)svc", publisher: publisher, viewers: viewers, collectors: collectors)
        let video = publisher.engine.createLocalCustomVideoTrack(desc: "camera_big", preset: VideoPreset(width: 640, height: 360, frameRate: 30, maxBitrate: 1_000_000),
                                                                 simulcast: true)
        try await publisher.channel.publishLocalTrack(video)
        #expect(video.info?.codec?.lowercased() == codecName && video.info?.e2ee == true, "\(String(describing: video.info))")
        let layers = video.info?.layers ?? []
        #expect(layers.map(\.desc) == ["camera_big", "camera_small"] && layers.last?.width == 320 && layers.last?.height == 180,
                "announced with the lower spatial layer half the size: \(layers)")
        let senders = publisher.channel.media.map { media in media.publish.senders(mid: media.publish.mid(of: video) ?? "") } ?? []
        #expect(senders.count == 1, "one L2T3_KEY stream, not simulcast")
        let pusher = try SDKMediaPusher(video: video, audio: nil, width: 640, height: 360)
        defer { pusher.stop() }

        let decodedBig = await (try? eventually("big layer decrypted and decoded") { collectors[0].collector.sizes.filter { $0 == (640, 360) }.count >= 60 }) != nil
        let decodedSmall = await (try? eventually("small layer decrypted and decoded") { collectors[1].collector.sizes.filter { $0 == (320, 180) }.count >= 60 }) != nil
        try await eventually(timeout: 10, "the viewer with another passphrase receives the packets") {
            wrong.channel.remoteTrack(uid: "pub", desc: "camera_big").map { ($0.receiveStatistics?.packetsReceived ?? 0) > 100 } ?? false
        }
        pusher.stop()
        let bigNumbers = collectors[0].collector.numbers, smallNumbers = collectors[1].collector.numbers
        let smallSizes = Set(collectors[1].collector.sizes.map { "\($0.0)x\($0.1)" })
        let bigBytes = big.channel.remoteTrack(uid: "pub", desc: "camera_big")?.receiveStatistics?.bytesReceived ?? 0
        let smallBytes = small.channel.remoteTrack(uid: "pub", desc: "camera_big")?.receiveStatistics?.bytesReceived ?? 0
        print("encrypted \(codec.rawValue) SVC: big \(bigNumbers.count) numbers \(bigNumbers.first ?? -1)…\(bigNumbers.last ?? -1) missing \(frameGaps(bigNumbers).missing), "
              + "small \(smallNumbers.count) numbers \(smallNumbers.first ?? -1)…\(smallNumbers.last ?? -1) missing \(frameGaps(smallNumbers).missing) "
              + "sizes \(smallSizes); bytes big \(bigBytes) small \(smallBytes); another passphrase decoded \(collectors[2].collector.sizes.count)")
        #expect(decodedBig && decodedSmall)
        #expect(smallSizes == ["320x180"], "the small viewer decodes the lower spatial layer alone")
        for numbers in [bigNumbers, smallNumbers] {
            #expect(frameGaps(numbers).ordered && numbers.count >= 30, "numbers \(numbers)")
        }
        #expect(smallBytes > 0 && smallBytes < bigBytes, "the server forwarded the small layer alone (bytes big \(bigBytes) small \(smallBytes))")
        #expect(recorders[0].states(of: "pub") == [.ok] && recorders[1].states(of: "pub") == [.ok])
        #expect(recorders[2].states(of: "pub") == [.decryptionFailed])
        #expect(collectors[2].collector.numbers.isEmpty && collectors[2].collector.sizes.isEmpty)

        for peer in [publisher] + viewers { await peer.channel.leave() }
        await server.stop()
    }
}
