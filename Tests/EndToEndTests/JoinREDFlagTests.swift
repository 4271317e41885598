import Foundation
@testable import SRTCCore
import SRTCTestSupport
import TestWait
import Testing

/// `srtc join --red off` (docs/sdk-srtc.md): a bot that turned redundant audio off publishes plain
/// Opus. Two bots publish a tone, one with the flag and one without; an SDK subscriber that offers
/// RED counts the packets of each that came in RED (`playoutCounters.receivedAsRED`): none of the
/// first's, nearly all of the second's. Loopback loses nothing, so the SFU adds no RED of its own.
@Suite(.serialized) struct JoinREDFlagTests {
    @Test func aBotWithRedOffPublishesPlainOpus() async throws {
        let server = try TestServer()
        let channel = "redflag"
        let plainBot = try BotProcess(url: server.httpBase, channel: channel, uid: "plain", extra: ["--video", "none", "--red", "off"])
        let redBot = try BotProcess(url: server.httpBase, channel: channel, uid: "red", extra: ["--video", "none"])
        let subscriber = SDKPeer()
        let autoSubscriber = SDKAutoSubscriber()  // the channel holds its delegates weakly
        subscriber.channel.delegates.add(delegate: autoSubscriber)
        try await subscriber.channel.join(url: server.httpBase, token: server.token(uid: "sub", channel: channel))
        try await subscriber.events.wait(for: "track+ plain mic")
        try await subscriber.events.wait(for: "track+ red mic")
        let plain = try #require(subscriber.channel.remoteTrack(uid: "plain", desc: "mic") as? RemoteAudioTrack)
        let red = try #require(subscriber.channel.remoteTrack(uid: "red", desc: "mic") as? RemoteAudioTrack)
        try await eventually(timeout: 30, "2 s of each bot's audio played") {
            (plain.playoutCounters?.statistics.played ?? 0) > 100 && (red.playoutCounters?.statistics.played ?? 0) > 100
        }
        let plainCounters = try #require(plain.playoutCounters), redCounters = try #require(red.playoutCounters)
        print("srtc join --red off: \(plainCounters.receivedAsRED) of \(plainCounters.statistics.played) packets played came in RED; "
            + "without the flag \(redCounters.receivedAsRED) of \(redCounters.statistics.played)")
        #expect(plainCounters.receivedAsRED == 0)
        #expect(redCounters.receivedAsRED > 100)
        withExtendedLifetime(autoSubscriber) {}
        await subscriber.channel.leave()
        await plainBot.stop()
        await redBot.stop()
        await server.stop()
    }
}
