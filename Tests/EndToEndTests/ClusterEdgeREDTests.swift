import Foundation
@testable import SRTCCore
import SRTCLab
@testable import SRTCServer
import SRTCTestSupport
import TestWait
import Testing

/// RED (RFC 2198) across nodes (docs/network.md, "RED across nodes"): an SDK publisher on the
/// channel's node sends its audio in RED; two SDK subscribers on a relaying node, one with RED
/// and one without, are served by that node, which receives the track once over its uplink. The
/// RED subscriber gets RED (it came across as RED), the other plain Opus (stripped on the
/// relaying node); both hear the tone.
@Suite(.serialized) struct ClusterEdgeREDTests {
    @Test func redCrossesTheUplinkAndIsForwardedOrStrippedOnTheRelayingNode() async throws {
        let url = try await TestRedis.freshURL()
        let nodes = try ["a", "b"].map { id in
            try TestServer { $0.cluster.redisURL = url; $0.cluster.nodeId = id; $0.limits.nodeChannelSubscribers = 1 }
        }
        let (a, b) = (nodes[0], nodes[1])
        let alice = SDKPeer(), red = SDKPeer(), plain = SDKPeer(redundantAudio: false)
        let redSubscriber = SDKAutoSubscriber(), plainSubscriber = SDKAutoSubscriber()
        red.channel.delegates.add(delegate: redSubscriber)
        plain.channel.delegates.add(delegate: plainSubscriber)
        try await alice.channel.join(url: a.url, token: a.token(uid: "alice", channel: "red"))
        let audio = alice.engine.createLocalCustomAudioTrack(desc: "mic")
        try await alice.channel.publishLocalTrack(audio)
        try await red.channel.join(url: b.url, token: b.token(uid: "red", channel: "red"))
        try await plain.channel.join(url: b.url, token: b.token(uid: "plain", channel: "red"))
        try await red.events.wait(for: "track+ alice mic")
        try await plain.events.wait(for: "track+ alice mic")
        let pusher = try SDKMediaPusher(video: nil, audio: audio, width: 320, height: 180)
        defer { pusher.stop() }

        let redTrack = try #require(red.channel.remoteTrack(uid: "alice", desc: "mic") as? RemoteAudioTrack)
        let plainTrack = try #require(plain.channel.remoteTrack(uid: "alice", desc: "mic") as? RemoteAudioTrack)
        try await eventually(timeout: 30, "both subscribers play 2 s of audio") {
            (redTrack.playoutCounters?.statistics.played ?? 0) > 100 && (plainTrack.playoutCounters?.statistics.played ?? 0) > 100
        }
        // Served by the relaying node, which relays the channel once.
        #expect(b.app.edges.count == 1 && a.app.edges.count == 0)
        let redCounters = try #require(redTrack.playoutCounters), plainCounters = try #require(plainTrack.playoutCounters)
        let redHz = redSubscriber.collector.toneFrequency, plainHz = plainSubscriber.collector.toneFrequency
        print("RED across nodes: the RED subscriber on b got \(redCounters.receivedAsRED) of \(redCounters.statistics.played) packets "
            + "in RED, \(redHz.map(fmt) ?? "-") Hz; the plain one \(plainCounters.receivedAsRED) of \(plainCounters.statistics.played), "
            + "\(plainHz.map(fmt) ?? "-") Hz")
        #expect(redCounters.receivedAsRED > 100)
        #expect(plainCounters.receivedAsRED == 0)
        for hz in [redHz, plainHz] {
            let frequency = try #require(hz)
            #expect(abs(frequency - 440) < 10, "tone decoded at \(frequency) Hz")
        }
        pusher.stop()
        for peer in [red, plain, alice] { await peer.channel.leave() }
        for node in nodes.reversed() { await node.stop() }
    }
}
