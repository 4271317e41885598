import Foundation
import Testing
import RTCNet
@testable import SRTCServer
import SRTCTestSupport

/// A WHIP session is a participant (docs/ingress.md, WHIP): its uid joins with its tracks and the
/// channel's webhooks fire for it as for an SDK client; its `DELETE` is a leave (`client_leave`).
@Suite(.serialized) struct WHIPWebhookTests {
    @Test func aWHIPPublisherFiresTheWebhooksOfAJoinAPublishAndALeave() async throws {
        let hooks = try TestWebhookReceiver()
        let server = try TestServer(webhookURL: hooks.url)
        let created = try await HTTPMediaICEServerLinkTests.publish(server, channel: "hooked", uid: "obs")
        #expect(created.status == 201, "\(String(decoding: created.body, as: UTF8.self))")
        let joined = try await hooks.waitFor("user_joined", uid: "obs")
        #expect(joined.json["channel"] == "hooked" && joined.signatureValid)
        let published = try await hooks.waitFor(2, of: "track_published", timeout: 20)
        #expect(published.allSatisfy { $0.json["data.uid"] == "obs" }, "\(published.map(\.json))")
        let location = try #require(created.headers["Location"])
        let deleted = try await HTTPClient().execute(method: "DELETE", url: server.httpBase + location)
        #expect(deleted.status == 200)
        let left = try await hooks.waitFor("user_left", uid: "obs")
        #expect(left.json["data.reason"] == "client_leave", "\(left.json)")
        await server.stop()
        await hooks.server.shutdown()
    }
}
