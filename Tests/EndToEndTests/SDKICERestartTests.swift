import Foundation
import RTCMedia
@testable import SRTCCore
import SRTCLab
import TestWait
import SRTCTestSupport
import Testing

/// What the SDK does when a media path fails (ICE consent lost): an ICE restart over signaling
/// with new credentials on both sides, keeping the transports (and their DTLS keys) as browsers do.
@Suite(.serialized) struct SDKICERestartTests {
    @Test func anICERestartKeepsTheTransportsAndMediaFlows() async throws {
        let server = try SDKTestServer()
        let a = SDKPeer(), b = SDKPeer()
        let subscriber = SDKAutoSubscriber()
        b.channel.delegates.add(delegate: subscriber)
        try await a.channel.join(url: server.url, token: server.token(uid: "a", channel: "ice"))
        try await b.channel.join(url: server.url, token: server.token(uid: "b", channel: "ice"))
        let video = a.engine.createLocalCustomVideoTrack(desc: "canvas", preset: VideoPreset(width: 320, height: 180, frameRate: 30, maxBitrate: 400_000))
        try await a.channel.publishLocalTrack(video)
        let pusher = try SDKMediaPusher(video: video, audio: nil, width: 320, height: 180)
        defer { pusher.stop() }
        try await eventually("frames") { subscriber.collector.frameCount > 10 }
        let media = try #require(a.channel.media)
        let transport = try #require(media.publish.currentTransport)
        let credentialsBefore = transport.localICE

        a.channel.queue.sync { a.channel.mediaPathFailed(.publish) }
        b.channel.queue.sync { b.channel.mediaPathFailed(.subscribe) }
        try await eventually("publish ICE restarted") { transport.localICE != credentialsBefore }
        // A second track renegotiates the publish transport: the restarted credentials, same
        // transport. (Publishing waits for the restart's exchange: both hold the publish lock.)
        let audio = a.engine.createLocalCustomAudioTrack(desc: "mic")
        try await a.channel.publishLocalTrack(audio)
        #expect(media.publish.currentTransport === transport)
        let before = subscriber.collector.frameCount
        try await eventually("frames after the restarts") { subscriber.collector.frameCount > before + 20 }
        await a.channel.leave()
        await b.channel.leave()
        await server.stop()
    }
}
