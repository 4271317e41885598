import EgressServer
import Foundation
import MediaTestSupport
import Processes
import SRTC
import SRTCProtocol
import SRTCServer
import SRTCTestSupport
import TestWait
import Testing

/// docs/ingress.md, "On a cluster": an RTMP ingress made through one node for a channel that
/// lives on the other. The node that made it listens (its URL) and lists it; its worker joins
/// through that node's signaling, which relays to the channel's node (docs/deploy.md, "Any node
/// answers, by relaying"), and publishes there; viewers that joined through either node decode
/// the frame numbers in order.
@Suite(.serialized) struct IngressClusterTests {
    @Test func anIngressMadeOnOneNodeIsPublishedInAChannelOfTheOtherAndPlaysThroughBoth() async throws {
        let redis = try await TestRedis.freshURL()
        let directory = try TemporaryDirectory(prefix: "srtc-ingress-cluster")
        defer { directory.cleanUp() }
        let nodes = try ["a", "b"].map { id in
            try TestServer(modules: [EgressModule.factory]) {
                $0.cluster.redisURL = redis
                $0.cluster.nodeId = id
                $0.egress.maxTasks = 4
                $0.egress.recordingDir = directory.file("recordings-\(id)")
            }
        }

        func viewer(_ node: TestServer, _ uid: String) async throws -> (SDKPeer, SDKAutoSubscriber) {
            let peer = SDKPeer()
            let subscriber = SDKAutoSubscriber()
            peer.channel.delegates.add(delegate: subscriber)
            _ = try await peer.channel.join(url: node.httpBase, token: node.token(uid: uid, channel: "show"))
            return (peer, subscriber)
        }
        // The channel is placed on a node by the cluster (the least loaded); the ingress is made
        // on the other one.
        let (first, fromFirst) = try await viewer(nodes[0], "viewer-0")
        let ownerId = try #require(try await nodes[0].app.cluster?.directory.owner(of: ChannelKey(appId: TestServer.appId, name: "show")).id)
        let owner = try #require(nodes.first { $0.app.config.cluster.nodeId == ownerId }), other = try #require(nodes.first { $0.app.config.cluster.nodeId != ownerId })
        let (second, fromSecond) = try await viewer(nodes[1], "viewer-1")
        let (atOwner, atOther) = owner === nodes[0] ? (first, second) : (second, first)
        let (fromOwner, fromOther) = owner === nodes[0] ? (fromFirst, fromSecond) : (fromSecond, fromFirst)

        let (status, json) = try await other.call("/server/v1/ingress/create", ["channel": "show", "uid": "enc", "kind": "rtmp"])
        let created = try #require(json["ingress"] as? [String: Any], "\(status) \(json)")
        let url = try #require(created["url"] as? String)
        let id = try #require(created["ingress_id"] as? String)
        // The node that made it listens and lists it; the channel's node does not.
        let (_, listedThere) = try await other.call("/server/v1/ingress/list", [:])
        #expect((listedThere["ingresses"] as? [[String: Any]])?.contains { $0["ingress_id"] as? String == id } == true)
        let (_, listedOnOwner) = try await owner.call("/server/v1/ingress/list", [:])
        #expect((listedOnOwner["ingresses"] as? [[String: Any]])?.isEmpty ?? true, "\(listedOnOwner)")
        let otherId = other.app.config.cluster.nodeId ?? "?"
        print("ingress cluster: made on \(otherId), channel on \(ownerId), push to \(url)")

        let pattern = try IngressTests.pattern(directory, frames: 300)
        var pusher: ChildProcess?
        var attempts = 0
        try await eventually(timeout: 60, "the ingress publishes in show (\(attempts) pushes)") {
            if atOwner.channel.remoteTracks(uid: "enc").contains(where: { $0.kind == .video }) { return true }
            if pusher?.isRunning != true {
                attempts += 1
                pusher = try? IngressTests.push(pattern, to: url, format: "flv", log: directory.file("push.\(attempts).log"))
            }
            return false
        }
        for (collector, what) in [(fromOwner.collector, "the viewer on the channel's node"), (fromOther.collector, "the viewer on the ingress's node (relayed)")] {
            let numbers = try await IngressTests.decoded(collector, after: 0, atLeast: 45, what)
            print("ingress cluster: \(what): \(numbers.count) frames, \(numbers.first!)…\(numbers.last!), \(frameGaps(numbers).missing) missing")
            #expect(frameGaps(numbers).ordered, "\(what): \(numbers)")
        }
        // One channel, one user: the ingress joined through its node and publishes on the channel's.
        #expect(atOther.channel.users.contains { $0.uid == "enc" } && atOwner.channel.users.contains { $0.uid == "enc" })

        await pusher?.stop()
        pusher = nil
        _ = try await other.call("/server/v1/ingress/delete", ["ingress_id": id])
        for peer in [atOwner, atOther] {
            await peer.channel.leave()
            await peer.engine.destroy()
        }
        for node in nodes { await node.stop() }
    }
}
