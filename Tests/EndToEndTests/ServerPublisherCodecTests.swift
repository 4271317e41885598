import Foundation
import SRTC
import SRTCProtocol
import SRTCServer
import SRTCTestSupport
import TestWait
import Testing

/// `--video-codecs` is for clients; the server's own publishers are exempt (docs/protocol.md,
/// "Which video codec"): a composite publishes VP8 and an ingress H.264 or VP8 whatever the list
/// says. Before, a list without their codec refused their publish (the composite's VP8 under `vp9`)
/// or answered it in another codec of its offer.
@Suite(.serialized) struct ServerPublisherCodecTests {
    /// An SDK engine that prefers VP8 offers VP8 and H.264. Under `vp9` a client's publish is
    /// refused; the same engine with a server publisher's token (`server_publisher`, as the tokens
    /// the server mints for composites and ingresses) publishes VP8, and a viewer receives it.
    @Test func aServerPublishersOfferIsAnsweredInItsOwnOrderUnderTheList() async throws {
        let server = try TestServer { $0.media.videoCodecs = VideoCodecPreference(parsing: "vp9")! }
        let client = EgressPeer(), worker = EgressPeer(), viewer = EgressPeer()
        try await client.channel.join(url: server.httpBase, token: server.token(uid: "client", channel: "codecs"))
        let refused = client.engine.createLocalCustomVideoTrack(desc: "camera_big", preset: VideoPreset(width: 320, height: 180, frameRate: 15, maxBitrate: 300_000))
        let refusal = await #expect(throws: SRTCError.self) { try await client.channel.publishLocalTrack(refused) }
        if case .server(let code, let message)? = refusal {
            #expect(code == 40002 && message.hasSuffix("offers none of the video codecs the server takes from publishers: vp9"), "\(message)")
        } else {
            Issue.record("refused with \(String(describing: refusal))")
        }

        // The same engine's offer, with the token the server mints for its publishing workers.
        let composite = worker.engine.createLocalCustomVideoTrack(desc: "camera_big", preset: refused.preset)
        for (peer, token) in [(viewer, server.token(uid: "viewer", channel: "codecs")),
                              (worker, server.token(uid: "mcu", channel: "codecs", hidden: true, serverPublisher: true))] {
            try await peer.channel.join(url: server.httpBase, token: token)
        }
        try await worker.channel.publishLocalTrack(composite)
        try await viewer.events.wait(for: "track+ mcu camera_big")
        let announced = [composite.info?.codec, viewer.channel.remoteTrack(uid: "mcu", desc: "camera_big")?.info?.codec]
        #expect(announced.map { $0?.lowercased() } == ["vp8", "vp8"], "published and announced as \(announced)")
        await client.channel.leave()
        await worker.channel.leave()
        await viewer.channel.leave()
        await server.stop()
    }

    /// The real composite (the egress worker process) on a server started with `--video-codecs vp9`:
    /// its `camera_big` is published in VP8 (from a VP9 bot's input) and a viewer decodes it.
    @Test func theCompositePublishesVP8UnderAListWithoutIt() async throws {
        let server = try EgressTestServer(videoCodecs: VideoCodecPreference(parsing: "vp9")!)
        let viewer = EgressPeer()
        let tiles = TileReader(tiles: [(x: 0, y: 0, width: 640, height: 360)])
        let composite = CompositeViewer(uid: "mcu", tiles: tiles)
        viewer.channel.delegates.add(delegate: composite)
        try await viewer.channel.join(url: server.url, token: server.token(uid: "viewer", channel: "mix"))
        // A client under the list: the bot publishes VP9 (its VP8 would be refused).
        let bot = try BotProcess(url: server.url, channel: "mix", uid: "bot1", patternStart: 0, extra: ["--video-codec", "vp9"])
        try await viewer.events.wait(for: "track+ bot1 camera_big")
        let (status, json) = try await server.call("/server/v1/channel/composite/start",
                                                   ["channel": "mix", "uid": "mcu", "width": 640, "height": 360, "frame_rate": 15])
        #expect(status == 200, "\(json)")
        try await viewer.events.wait(for: "track+ mcu camera_big")
        let remote = try #require(viewer.channel.remoteTrack(uid: "mcu", desc: "camera_big") as? RemoteVideoTrack)
        #expect(remote.info?.codec?.lowercased() == "vp8")
        try await eventually("composite frames (\(tiles.frames) pictures)") { tiles.frames >= 10 }
        await bot.stop()
        await viewer.channel.leave()
        await server.stop()
    }
}
