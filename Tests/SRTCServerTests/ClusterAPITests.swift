import Foundation
import RTCNet
import SRTCProtocol
@testable import SRTCServer
import SRTCTestSupport
import Testing
import TestWait

/// The signed server API on any node of a cluster (docs/deploy.md, "The server API on any
/// node"): three nodes on one Redis; the channel runs on node a, and calls sent to b and c act
/// on it as if sent to a.
@Suite struct ClusterAPITests {
    /// WHIP on a node that does not run the channel is redirected to the node that does
    /// (docs/ingress.md; RFC 9725 §4.5), where the publisher joins the channel.
    @Test func aWHIPOfferOnAnotherNodeIsRedirectedToTheChannelsNode() async throws {
        let url = try await TestRedis.freshURL()
        let a = try TestServer { $0.cluster.redisURL = url; $0.cluster.nodeId = "a" }
        let b = try TestServer { $0.cluster.redisURL = url; $0.cluster.nodeId = "b" }
        let alice = try await TestSignalClient(url: a.wsURL)
        _ = try await alice.join(token: a.token(uid: "alice", channel: "w"))
        let client = HTTPClient()
        let headers: HTTPHeaders = ["Content-Type": "application/sdp", "Authorization": "Bearer " + b.token(uid: "obs", channel: "w")]
        let offer = Array(ClientSDP.offer([.audio(mid: "0")]).utf8)
        let redirected = try await client.execute(method: "POST", url: b.httpBase + "/whip/v1/w", headers: headers, body: offer)
        #expect(redirected.status == 307 && redirected.headers["Location"] == a.httpBase + "/whip/v1/w", "\(redirected.headers)")
        let created = try await client.execute(method: "POST", url: redirected.headers["Location"] ?? "", headers: headers, body: offer)
        #expect(created.status == 201)
        let (_, users) = try await a.call("/server/v1/channel/users", ["channel": "w"])
        #expect((users["users"] as? [[String: Any]])?.compactMap { $0["uid"] as? String } == ["alice", "obs"], "\(users)")
        #expect(b.app.channels.count == 0)
        await a.stop()
        await b.stop()
    }

    @Test func channelCallsOnAnyNodeActOnTheChannelsNode() async throws {
        let url = try await TestRedis.freshURL()
        let a = try TestServer { $0.cluster.redisURL = url; $0.cluster.nodeId = "a" }
        let b = try TestServer { $0.cluster.redisURL = url; $0.cluster.nodeId = "b" }
        let c = try TestServer { $0.cluster.redisURL = url; $0.cluster.nodeId = "c" }
        // Alice and bob join through a; the channel runs there (idle nodes: ties go to "a").
        let alice = try await TestSignalClient(url: a.wsURL)
        _ = try await alice.join(token: a.token(uid: "alice", channel: "m"))
        let bob = try await TestSignalClient(url: a.wsURL)
        _ = try await bob.join(token: a.token(uid: "bob", channel: "m"))
        #expect(c.app.channels.count == 0 && b.app.channels.count == 0)

        // Read calls through c and b see a's channel.
        let (listStatus, list) = try await c.call("/server/v1/channel/list", [:])
        #expect(listStatus == 200)
        #expect((list["channels"] as? [[String: Any]])?.compactMap { $0["channel"] as? String } == ["m"], "\(list)")
        let (usersStatus, users) = try await b.call("/server/v1/channel/users", ["channel": "m"])
        #expect(usersStatus == 200)
        #expect((users["users"] as? [[String: Any]])?.compactMap { $0["uid"] as? String } == ["alice", "bob"], "\(users)")
        let (infoStatus, info) = try await c.call("/server/v1/channel/info", ["channel": "m"])
        #expect(infoStatus == 200 && info["user_count"] as? Int == 2, "\(info)")

        // A message through c reaches alice only.
        let (sentStatus, sent) = try await c.call("/server/v1/channel/message", ["channel": "m", "to": ["alice"], "data": "from c"])
        #expect(sentStatus == 200 && sent["delivered"] as? Int == 1, "\(sent)")
        let message = try await alice.event { if case .message(let m) = $0 { return m }; return nil }
        #expect(message.data == "from c" && message.from == nil)

        // A kick through b reaches bob on a; alice sees bob leave, kicked.
        #expect(try await b.call("/server/v1/channel/kick", ["channel": "m", "uid": "bob", "reason": "via b"]).0 == 200)
        let told = try await bob.event { if case .disconnected(let d) = $0 { return d }; return nil }
        #expect(told.reason == .kicked && told.message == "via b")
        let left = try await alice.event { if case .userLeft(let u) = $0 { return u }; return nil }
        #expect(left.uid == "bob" && left.reason == .kicked)

        // A channel no node runs is not live on any node; a close through c ends a's channel.
        #expect(try await c.call("/server/v1/channel/info", ["channel": "nowhere"]).0 == 404)
        #expect(try await c.call("/server/v1/channel/close", ["channel": "m"]).0 == 200)
        let closed = try await alice.event { if case .disconnected(let d) = $0 { return d }; return nil }
        #expect(closed.reason == .channelClosed)
        try await eventually(timeout: 10, "the channel ended on a") { a.app.channels.count == 0 }

        alice.close()
        bob.close()
        await c.stop()
        await b.stop()
        await a.stop()
    }

    @Test func aForwardedCallIsSignedAfreshAndAnsweredWhereItLands() async throws {
        let url = try await TestRedis.freshURL()
        let a = try TestServer { $0.cluster.redisURL = url; $0.cluster.nodeId = "a" }
        let b = try TestServer { $0.cluster.redisURL = url; $0.cluster.nodeId = "b" }
        let alice = try await TestSignalClient(url: a.wsURL)
        _ = try await alice.join(token: a.token(uid: "alice", channel: "m"))
        // The caller's nonce is spent on b; the call b forwards to a carries a nonce of its own,
        // so the owner accepts it, and the caller's replay is still refused.
        let nonce = UUID().uuidString
        #expect(try await b.call("/server/v1/channel/users", ["channel": "m"], nonce: nonce).0 == 200)
        let (status, error) = try await a.call("/server/v1/channel/users", ["channel": "m"], nonce: nonce)
        #expect(status == 401 && error["code"] as? Int == APIErrorCode.nonceReplayed.rawValue)
        // Once a stops, its channel is on no live node: b answers from itself.
        alice.close()
        await a.stop()
        #expect(try await b.call("/server/v1/channel/users", ["channel": "m"]).0 == 404)
        await b.stop()
    }
}
