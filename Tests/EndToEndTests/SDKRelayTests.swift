import Foundation
@testable import SRTCCore
import SRTCLab
import SRTCTestSupport
import TestWait
import Testing

/// The SDK with `iceTransportPolicy: .relay` through a coturn the test starts and the server's
/// `ice_servers` (`--turn-urls`, `--turn-secret`): both engines' media goes through the relay, and
/// the subscriber decodes the publisher's frame numbers.
@Suite(.serialized) struct SDKRelayTests {
    static let width = 320, height = 180

    @Test func relayOnlyEnginesPublishAndDecodeVideoThroughCoturn() async throws {
        let coturn = try await TestCoturn()
        let server = try SDKTestServer { config in
            config.turn.urls = ["turn:127.0.0.1:\(coturn.port)?transport=udp"]
            config.turn.secret = coturn.secret
        }
        let aPeer = SDKPeer(iceTransportPolicy: .relay), bPeer = SDKPeer(iceTransportPolicy: .relay)
        let (aEngine, a, b, bEvents) = (aPeer.engine, aPeer.channel, bPeer.channel, bPeer.events)
        let subscriber = SDKAutoSubscriber()
        b.delegates.add(delegate: subscriber)
        try await a.join(url: server.url, token: server.token(uid: "relay-a", channel: "relay"))
        try await b.join(url: server.url, token: server.token(uid: "relay-b", channel: "relay"))
        let video = aEngine.createLocalCustomVideoTrack(desc: "camera_big",
                                                        preset: VideoPreset(width: Self.width, height: Self.height, frameRate: 30, maxBitrate: 400_000))
        try await a.publishLocalTrack(video)
        try await bEvents.wait(for: "track+ relay-a camera_big")

        let pusher = try SDKMediaPusher(video: video, audio: nil, width: Self.width, height: Self.height)
        try await eventually("2 s of video pushed") { pusher.framesPushed >= 60 }
        // The publisher goes on until those frames are decoded: stopped first, a packet lost at the
        // end could not be recovered (a key frame asked of a stopped publisher never comes).
        let pushed = pusher.framesPushed
        try await eventually("the frames pushed in 2 s decoded") { (subscriber.collector.numbers.last ?? -1) >= pushed - 1 }
        pusher.stop()
        let numbers = subscriber.collector.numbers
        #expect(numbers.count > 30, "decoded \(numbers.count) of \(pushed) frames")
        #expect(frameGaps(numbers).ordered)

        // Every media packet went through coturn: both transports selected a relay channel, and
        // the RTP counted on each end came as ChannelData.
        let publish = try #require(a.media?.publish.currentTransport)
        let subscribe = try #require(b.media?.subscribe.currentTransport)
        #expect(publish.relayChannel != nil && subscribe.relayChannel != nil)
        let sent = publish.stats, received = subscribe.stats
        #expect(sent.rtpSent > 30 && sent.relayedSent >= sent.rtpSent, "publisher \(sent)")
        #expect(received.rtpReceived > 30 && received.relayedReceived >= received.rtpReceived, "subscriber \(received)")
        // coturn allocated for both users (their uids are in the REST usernames).
        let log = coturn.log
        #expect(log.contains("relay-a") && log.contains("relay-b"), "coturn log: \(log.suffix(800))")

        await a.leave()
        await b.leave()
        await server.stop()
        await coturn.stop()
    }
}
