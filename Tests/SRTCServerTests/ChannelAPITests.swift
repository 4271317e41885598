import Foundation
import TestWait
import Testing
import RTCNet
import SRTCProtocol
import Synchronization
@testable import SRTCServer
import SRTCTestSupport

/// The signed channel routes and webhooks, against a real server and a real webhook receiver.
@Suite(.serialized) struct ChannelAPITests {
    @Test func kickRemovesTheUserTellsOthersAndFiresSignedWebhooks() async throws {
        let hooks = try TestWebhookReceiver()
        let server = try TestServer(webhookURL: hooks.url)
        let alice = try await TestSignalClient(url: server.wsURL)
        _ = try await alice.join(token: server.token(uid: "alice", channel: "k"))
        let bob = try await TestSignalClient(url: server.wsURL)
        _ = try await bob.join(token: server.token(uid: "bob", channel: "k"))

        let (status, _) = try await server.call("/server/v1/channel/kick", ["channel": "k", "uid": "bob", "reason": "spam"])
        #expect(status == 200)
        let told = try await bob.event { if case .disconnected(let d) = $0 { return d }; return nil }
        #expect(told == Disconnected(reason: .kicked, message: "spam"))
        let left = try await alice.event { if case .userLeft(let l) = $0 { return l }; return nil }
        #expect(left == UserLeft(uid: "bob", reason: .kicked))

        let created = try await hooks.waitFor("channel_created")
        let joined = try await hooks.waitFor("user_joined", uid: "bob")
        let kicked = try await hooks.waitFor("user_left", uid: "bob")
        #expect(kicked.json["data.reason"] == "kicked" && kicked.json["channel"] == "k" && kicked.json["app_id"] == TestServer.appId)
        #expect(kicked.json["event_id"]?.hasPrefix("EV_") == true)
        #expect(created.signatureValid && joined.signatureValid && kicked.signatureValid)
        #expect(created.sequence == 1 && joined.sequence < kicked.sequence)

        let (again, body) = try await server.call("/server/v1/channel/kick", ["channel": "k", "uid": "bob"])
        #expect(again == 404 && body["code"] as? Int == APIErrorCode.notFound.rawValue)
        await server.stop()
        await hooks.server.shutdown()
    }

    @Test func webhookDeliveryIsRetriedAfterFailures() async throws {
        let hooks = try TestWebhookReceiver(failingFirst: 2)
        let server = try TestServer(webhookURL: hooks.url)
        let c = try await TestSignalClient(url: server.wsURL)
        _ = try await c.join(token: server.token(uid: "r", channel: "retry"))
        // Two 503s then success: backoff 1 s + 2 s.
        let created = try await hooks.waitFor("channel_created")
        #expect(created.signatureValid)
        await server.stop()
        await hooks.server.shutdown()
    }

    @Test func channelRoutesReportAndControlLiveChannels() async throws {
        let server = try TestServer()
        let a = try await TestSignalClient(url: server.wsURL)
        _ = try await a.join(token: server.token(uid: "a", channel: "live"), nickname: "A")
        let b = try await TestSignalClient(url: server.wsURL)
        _ = try await b.join(token: server.token(uid: "b", channel: "live"))

        let (listStatus, list) = try await server.call("/server/v1/channel/list", [:])
        #expect(listStatus == 200, "\(list)")
        let channels = list["channels"] as? [[String: Any]] ?? []
        #expect(channels.map { $0["channel"] as? String } == ["live"] && channels.first?["user_count"] as? Int == 2)

        let (_, info) = try await server.call("/server/v1/channel/info", ["channel": "live"])
        #expect(info["user_count"] as? Int == 2)
        let (_, users) = try await server.call("/server/v1/channel/users", ["channel": "live"])
        #expect((users["users"] as? [[String: Any]])?.compactMap { $0["uid"] as? String } == ["a", "b"])

        let (_, delivered) = try await server.call("/server/v1/channel/message", ["channel": "live", "to": ["b"], "data": "from backend"])
        #expect(delivered["delivered"] as? Int == 1)
        let m = try await b.event { if case .message(let m) = $0 { return m }; return nil }
        #expect(m.from == nil && m.data == "from backend")

        let (_, updated) = try await server.call("/server/v1/channel/update", ["channel": "live", "metadata": "topic: demo"])
        #expect(updated["metadata"] as? String == "topic: demo")
        let info2 = try await a.event { if case .channelUpdated(let i) = $0, i.metadata != nil { return i }; return nil }
        #expect(info2.metadata == "topic: demo")

        let (missing, err) = try await server.call("/server/v1/channel/info", ["channel": "nothing"])
        #expect(missing == 404 && err["code"] as? Int == APIErrorCode.notFound.rawValue)
        let (badName, err2) = try await server.call("/server/v1/channel/info", ["channel": "bad name"])
        #expect(badName == 400 && err2["code"] as? Int == APIErrorCode.invalidParameter.rawValue)

        let (closed, _) = try await server.call("/server/v1/channel/close", ["channel": "live"])
        #expect(closed == 200)
        for c in [a, b] {
            let d = try await c.event { if case .disconnected(let d) = $0 { return d }; return nil }
            #expect(d.reason == .channelClosed)
        }
        try await eventually("the closed channel gone from the list") {
            (try await server.call("/server/v1/channel/list", [:]).1["channels"] as? [Any])?.isEmpty == true
        }
        await server.stop()
    }
}
