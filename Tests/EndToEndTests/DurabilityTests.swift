import Foundation
import Synchronization
import Testing
import TestWait
import RTCNet
import SRTCProtocol
import SRTCServer
import SRTCTestSupport

/// `kill -9` of a real `srtc-server` process in the middle of writes: everything it acknowledged
/// is there after the restart, and webhooks it had queued are delivered exactly once (issue #15).
@Suite(.serialized) struct DurabilityTests {
    /// The app the first start created, and signed calls with it.
    struct Backend {
        let server: ServerProcess
        let appId: String
        let appKey: String
        func call(_ path: String, _ body: [String: Any]) async throws -> (Int, [String: Any]) {
            try await SignedCall.post(server.httpBase, path, body, appId: appId, appKey: appKey)
        }
        func token(uid: String, channel: String) async throws -> String {
            let (status, body) = try await call("/server/v1/channel/grant", ["channel": channel, "uid": uid])
            guard status == 200, let token = body["token"] as? String else { throw ServerProcess.Failure(description: "grant: \(status) \(body)") }
            return token
        }
    }

    @Test func killDashNineLosesNothingAcknowledged() async throws {
        let hooks = try TestWebhookReceiver(appKey: "unknown yet")
        hooks.setFailing(true)  // the customer's backend is down: webhooks queue up
        let server = ServerProcess(arguments: ["--webhook-url", hooks.url, "--address-joins-per-second", "0"])
        defer { server.removeData() }
        try await server.start()
        let created = try #require(server.createdApp)
        hooks.setAppKey(created.appKey)
        let backend = Backend(server: server, appId: created.appId, appKey: created.appKey)

        // Webhooks queued before the kill: a channel created, a user in it.
        let alice = try await TestSignalClient(url: server.wsURL)
        _ = try await alice.join(token: try await backend.token(uid: "alice", channel: "durable"))

        // Attendance: a member enters a meeting.
        let (okMeeting, meeting) = try await backend.call("/server/v1/meeting/create", ["host_uid": "host", "title": "Before the crash"])
        #expect(okMeeting == 200)
        let meetingId = try #require(meeting["meeting_id"] as? String)
        try await enter(backend, uid: "mia", meetingId: meetingId)

        // Writes in flight when the process dies: meetings with members, each recorded once acknowledged.
        let acknowledged = Mutex<[(id: String, title: String, conferee: [String])]>([])
        let writer = Task {
            for i in 0..<10_000 {
                let conferee = ["m\(i)a", "m\(i)b"]
                guard let (status, body) = try? await backend.call("/server/v1/meeting/create", [
                    "host_uid": "host", "title": "Meeting \(i)", "attend_type": "invitation", "conferee": conferee,
                ]) else { return }
                guard status == 200, let id = body["meeting_id"] as? String else { return }
                acknowledged.withLock { $0.append((id, "Meeting \(i)", conferee)) }
            }
        }
        try await eventually("25 acknowledged writes") { acknowledged.withLock { $0.count } >= 25 }
        await server.kill()
        _ = await writer.value
        let written = acknowledged.withLock { $0 }
        #expect(written.count >= 25)

        // Restart on the same data; the backend is back.
        hooks.setFailing(false)
        try await server.start()
        #expect(server.log.components(separatedBy: "Created the first app").count == 2, "the restart made a new app")
        #expect(server.log.contains("apps: \(created.appId)"))

        // The app's credentials still sign; every acknowledged meeting is there with its members.
        for meeting in written {
            let (status, body) = try await backend.call("/server/v1/meeting/info", ["meeting_id": meeting.id])
            #expect(status == 200, "meeting \(meeting.id) lost: \(body)")
            let info = body["meeting"] as? [String: Any]
            #expect(info?["title"] as? String == meeting.title)
            #expect((info?["conferee"] as? [String])?.sorted() == meeting.conferee)
        }
        let (_, attendance) = try await backend.call("/server/v1/meeting/attendance", ["meeting_id": meetingId])
        let records = attendance["records"] as? [[String: Any]] ?? []
        #expect(records.contains { $0["uid"] as? String == "mia" && ($0["entered_at"] as? Int ?? 0) > 0 })
        // The stay the crash left open is ended by the restart (it stayed open for good before).
        let mia = records.first { $0["uid"] as? String == "mia" }
        #expect(mia?["exit_reason"] as? String == "disconnected" && (mia?["exited_at"] as? Int ?? 0) >= (mia?["entered_at"] as? Int ?? .max),
                "\(String(describing: mia))")

        // The restart tells the receiver that what was live ended; the webhooks queued before the
        // kill arrive when their retry is due (the backend had failed them meanwhile).
        let closed = try await hooks.waitFor("channel_closed")
        #expect(closed.json["data.reason"] == "server_restart" && closed.json["channel"] == "durable")
        let left = try await hooks.waitFor("user_left", uid: "alice")
        #expect(left.json["data.reason"] == "server_restart")
        _ = try await hooks.waitFor("channel_created")
        _ = try await hooks.waitFor("user_joined", uid: "alice")
        // A new event after them, then nothing may have come twice.
        let bob = try await TestSignalClient(url: server.wsURL)
        _ = try await bob.join(token: try await backend.token(uid: "bob", channel: "after"))
        _ = try await hooks.waitFor("user_joined", uid: "bob")
        let deliveries = hooks.deliveries
        #expect(Set(deliveries.map(\.eventId)).count == deliveries.count, "a webhook was delivered twice")
        let durable = deliveries.filter { $0.json["channel"] == "durable" }.sorted { $0.sequence < $1.sequence }
        #expect(durable.map(\.event) == ["channel_created", "user_joined", "user_left", "channel_closed"])
        #expect(durable.map(\.sequence) == [1, 2, 3, 4])
        #expect(deliveries.allSatisfy { $0.signatureValid })

        await server.stop()
        // The database itself is sound.
        let database = try SQLiteDatabase(path: server.dataDir + "/srtc.sqlite3")
        let integrity = try database.query("PRAGMA integrity_check")
        #expect(integrity.first?.first?.string == "ok")
        await hooks.shutdown()
    }

    /// Logs in to the meeting WebSocket with a member token and enters `meetingId`.
    private func enter(_ backend: Backend, uid: String, meetingId: String) async throws {
        let (status, grant) = try await backend.call("/stm/srvapi/v1/member/grant", ["uid": uid, "nickname": uid])
        let token = try #require(grant["token"] as? String, "member grant: \(status) \(grant)")
        let socket = try await WebSocketClient.connect(url: "ws://127.0.0.1:\(backend.server.httpPort)/stm/v1/ws")
        let answers = Mutex<[Int: Bool]>([:])
        socket.onMessage { message in
            guard case .text(let text) = message, let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
                  let id = object["id"] as? Int else { return }
            answers.withLock { $0[id] = object["ok"] as? Bool ?? false }
        }
        for (id, type, data) in [(1, "login", ["token": token]), (2, "enter_room", ["meeting_id": meetingId])] {
            let text = String(decoding: try JSONSerialization.data(withJSONObject: ["id": id, "type": type, "data": data]), as: UTF8.self)
            socket.send(text: text)
            let ok = try await waitFor("an answer to \(type)") { answers.withLock { $0[id] } }
            #expect(ok, "\(type) refused")
        }
    }
}
