import Foundation
import IMServer
import SMeetingProtocol
import SRTCProtocol
import SRTCServer
import SRTCTestSupport
import Testing
@testable import MeetingServer

/// Scheduled meetings remind their attendees through IM before they start.
@Suite struct MeetingReminderTests {
    @Test func attendeesGetOneReminderBeforeTheStartAndAMovedMeetingRemindsAgain() async throws {
        let server = try TestServer(modules: [IMModule.factory, MeetingModule.factory]) {
            $0.im.meetingReminderSeconds = 600
            $0.im.meetingReminderScanSeconds = 3600  // this test scans by hand
        }
        let module = try #require(server.app.modules.compactMap { $0 as? MeetingModule }.first)
        let imURL = "ws://127.0.0.1:\(server.app.httpPort)\(IMModule.webSocketPath)"
        // Bob is online; Carol has never used IM (her reminder waits for her).
        let bob = try await TestEnvelopeSocket(url: imURL)
        #expect(try await bob.call("login", IMLoginRequest(token: server.memberToken(uid: "bob"))).ok)
        let now = Int64(Date().timeIntervalSince1970)
        let (status, created) = try await server.call("/server/v1/meeting/create", [
            "host_uid": "alice", "title": "Weekly", "type": "appointment", "plan_time": now + 300, "plan_dur": 30, "conferee": ["bob", "carol"],
        ])
        #expect(status == 200)
        let meetingId = try #require(created["meeting_id"] as? String)
        // A meeting starting later than the lead time is not reminded of yet.
        _ = try await server.call("/server/v1/meeting/create", ["host_uid": "alice", "title": "Later", "type": "appointment",
                                                                 "plan_time": now + 3000, "plan_dur": 30, "conferee": ["bob"]])
        #expect(await module.reminders.scan(now: now) == 1)
        #expect(await module.reminders.scan(now: now + 10) == 0)  // nothing twice
        let reminder = try await bob.wait("the reminder") { _ in
            bob.events("message", as: IMMessage.self).first
        }
        #expect(reminder.kind == .meetingReminder && reminder.title == "Weekly" && reminder.from == nil)
        #expect(reminder.content.contains("starts in 5 min"))
        #expect(reminder.data?.contains(#""meeting_id":"\#(meetingId)""#) == true)
        #expect(reminder.data?.contains(#""plan_time":\#(now + 300)"#) == true)

        let carol = try await TestEnvelopeSocket(url: imURL)
        #expect(try await carol.call("login", IMLoginRequest(token: server.memberToken(uid: "carol"))).ok)
        let carols = try await carol.wait("carol's stored reminder") { _ in carol.events("message", as: IMMessage.self).first }
        #expect(carols.kind == .meetingReminder && carols.msgId == reminder.msgId)

        // Moved to a new time: reminded again, once.
        _ = try await server.call("/server/v1/meeting/update", ["meeting_id": meetingId, "plan_time": now + 400])
        #expect(await module.reminders.scan(now: now + 20) == 1)
        #expect(await module.reminders.scan(now: now + 30) == 0)
        #expect(try await bob.wait("the second reminder") { _ in
            bob.events("message", as: IMMessage.self).count == 2 ? true : nil
        })
        await server.stop()
    }
}
