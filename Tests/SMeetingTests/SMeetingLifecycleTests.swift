import Foundation
import SMeeting
import SRTC
import SRTCTestSupport
import TestWait
import Testing

/// The lifecycle calls of the SDK (seed 003), the waiting room, sign-in and roll call, and the
/// weak observer list.
@Suite(.serialized) struct SMeetingLifecycleTests {
    /// Media calls outside a meeting answer `.notInMeeting` and publish nothing (seed 001): logged
    /// in but not entered, and again after leaving.
    @Test func mediaCallsOutsideAMeetingAnswerNotInMeeting() async throws {
        let server = try TestServer.withMeetings()
        let host = try await TestMember(server: server, uid: "host")
        await #expect(throws: SMeetingError.notInMeeting) { _ = try await host.engine.startViewCaptureShare() }
        await #expect(throws: SMeetingError.notInMeeting) { try await host.engine.requestOpenMic() }
        await #expect(throws: SMeetingError.notInMeeting) { _ = try await host.engine.requestOpenCamera() }
        _ = try await host.host(MeetingCreateReq(title: "then out"))
        await host.engine.exitRoom()
        await #expect(throws: SMeetingError.notInMeeting) { _ = try await host.engine.startViewCaptureShare() }
        #expect(host.engine.viewCaptureTrack == nil && host.engine.srtc.getChannels().allSatisfy { $0.localTracks.isEmpty })
        await server.stop()
    }

    @Test func exitLogoutCancelDrawAndWeakObservers() async throws {
        let server = try TestServer.withMeetings()
        let host = try await TestMember(server: server, uid: "host")
        let bob = try await TestMember(server: server, uid: "bob")

        // cancelRoom: before anyone entered; a cancelled meeting cannot be entered or cancelled again.
        let planned = try await host.engine.createRoom(MeetingCreateReq(title: "planned"))
        await #expect(throws: SMeetingError.unauthorized) { try await bob.engine.cancelRoom(meetingId: planned.meetingId) }
        try await host.engine.cancelRoom(meetingId: planned.meetingId)
        #expect(try await host.engine.detailRoom(meetingId: planned.meetingId).status == .cancelled)
        await #expect(throws: SMeetingError.apiError(code: 40903, message: "a meeting that is cancelled cannot be cancelled")) {
            try await host.engine.cancelRoom(meetingId: planned.meetingId)
        }
        await #expect(throws: SMeetingError.apiError(code: 40903, message: "the meeting is cancelled")) {
            try await bob.engine.enterRoom(MeetingEnterReq(roomNo: planned.roomNo))
        }

        let meeting = try await host.host(MeetingCreateReq(title: "life"))
        await #expect(throws: SMeetingError.apiError(code: 40901, message: "a meeting that is ongoing cannot be cancelled")) {
            try await host.engine.cancelRoom(meetingId: meeting.meetingId)
        }
        try await bob.engine.enterRoom(MeetingEnterReq(meetingId: meeting.meetingId))

        // Whiteboard drawing disabled for bob: everyone sees it.
        try await host.engine.adminDisableDraw(uid: "bob")
        try await bob.events.wait(for: "draw bob true")
        #expect(try bob.engine.getUserInfo("bob").drawDisabled)
        await #expect(throws: SMeetingError.unauthorized) { try await bob.engine.adminDisableDraw(uid: "host") }

        // The observer list is weak: an observer nobody holds is gone and hears nothing.
        var temporary: MeetingRecorder? = MeetingRecorder()
        host.engine.delegates.add(delegate: temporary!)
        host.engine.delegates.add(delegate: temporary!)
        #expect(host.engine.delegates.count == 2)   // the test's recorder and this one, once
        weak let gone = temporary
        temporary = nil
        #expect(gone == nil && host.engine.delegates.count == 1)

        // exitRoom: out of the meeting and its channel, still logged in.
        await bob.engine.exitRoom()
        try await host.events.wait(for: "exit bob exit")
        try await bob.events.wait(for: "out exit")
        #expect(!bob.engine.isInRoom && bob.engine.isLoggedIn && bob.engine.srtc.getChannels().isEmpty)
        await #expect(throws: SMeetingError.notInMeeting) { try await bob.engine.sendRoomChatMessage("hi") }
        #expect(try await bob.engine.attendedRoom(page: 1).list.map(\.meetingId) == [meeting.meetingId])

        // logout in a meeting: exits first, then the login is gone.
        try await bob.engine.enterRoom(MeetingEnterReq(meetingId: meeting.meetingId))
        try await host.events.wait(for: "enter bob")
        await bob.engine.logout()
        try await eventually("bob exited on logout") { host.events.lines.filter { $0 == "exit bob exit" }.count == 2 }
        #expect(!bob.engine.isLoggedIn && !bob.engine.isInRoom && bob.engine.currentUserId == nil)
        await #expect(throws: SMeetingError.notLoggedIn) { try await bob.engine.attendedRoom(page: 1) }
        #expect(!bob.events.lines.contains("connection lost"))
        await server.stop()
    }

    @Test func waitingRoomWaitAdmitAdmitAllAndRemove() async throws {
        let server = try TestServer.withMeetings()
        let host = try await TestMember(server: server, uid: "host")
        let meeting = try await host.host(MeetingCreateReq(title: "lobby", waitingRoom: true))
        #expect(meeting.waitingRoom && host.engine.getRoomInfo()?.waitingRoom == true)
        var waiting: [String: TestMember] = [:]
        for uid in ["w1", "w2", "w3", "w4"] {
            let m = try await TestMember(server: server, uid: uid)
            let room = try await m.engine.enterRoom(MeetingEnterReq(meetingId: meeting.meetingId))
            #expect(room.meetingId == meeting.meetingId && m.engine.isInWaitingRoom && !m.engine.isInRoom)
            try await m.events.wait(for: "waiting")
            try await host.events.wait(for: "waits \(uid)")
            #expect(m.engine.srtc.getChannels().isEmpty)
            waiting[uid] = m
        }
        #expect(host.engine.getWaitingList().map(\.uid) == ["w1", "w2", "w3", "w4"])

        // One, then the others but one; one sent away; admitting someone not waiting is refused.
        try await host.engine.adminAdmitWaiting(uid: "w1")
        let w1 = try #require(waiting["w1"])
        try await w1.events.wait(for: "admitted")
        #expect(w1.engine.isInRoom && !w1.engine.isInWaitingRoom && w1.channel?.isJoined == true)
        #expect(w1.engine.getUsersInfoList().map(\.uid) == ["host", "w1"])
        try await host.engine.adminRemoveWaiting(uid: "w4")
        let w4 = try #require(waiting["w4"])
        try await w4.events.wait(for: "removed by host")
        // Out of the waiting room when told (told first, the state once lagged behind the event).
        #expect(w4.events.endsToldTooEarly.isEmpty)
        #expect(!w4.engine.isInWaitingRoom && !w4.engine.isInRoom && w4.engine.isLoggedIn)
        try await host.events.wait(for: "waited w4 removed")
        let admitted = try await host.engine.adminAdmitAllWaiting()
        #expect(admitted.map(\.uid) == ["w2", "w3"])
        for uid in ["w2", "w3"] { try await waiting[uid]?.events.wait(for: "admitted") }
        #expect(host.engine.getWaitingList().isEmpty && host.engine.getUsersInfoList().count == 4)
        await #expect(throws: SMeetingError.apiError(code: 40401, message: "w4 is not in the waiting room")) {
            try await host.engine.adminAdmitWaiting(uid: "w4")
        }
        await #expect(throws: SMeetingError.unauthorized) { try await w1.engine.adminAdmitAllWaiting() }

        // With the waiting room turned off, members enter at once.
        try await host.engine.adminSetWaitingRoom(false)
        try await w4.engine.enterRoom(MeetingEnterReq(meetingId: meeting.meetingId))
        #expect(w4.engine.isInRoom)
        await server.stop()
    }

    @Test func signInAndRollCallAreStoredAndReadAfterTheMeeting() async throws {
        let server = try TestServer.withMeetings()
        let host = try await TestMember(server: server, uid: "host")
        let bob = try await TestMember(server: server, uid: "bob")
        let carol = try await TestMember(server: server, uid: "carol")
        let meeting = try await host.host(MeetingCreateReq(title: "roll"))
        for m in [bob, carol] { try await m.engine.enterRoom(MeetingEnterReq(meetingId: meeting.meetingId)) }

        let started = try await host.engine.adminStartSignIn(duration: 60)
        for m in [bob, carol] { try await m.events.wait(for: "sign-in started") }
        #expect(bob.engine.currentSignIn == started)
        let record = try await bob.engine.signIn()
        #expect(record.uid == "bob" && record.signedAt != nil)
        try await host.events.wait(for: "signed bob 1/2")
        let result = try await host.engine.adminEndSignIn()
        #expect(result.records.map(\.uid) == ["bob", "carol"] && result.records.map { $0.signedAt != nil } == [true, false])
        try await carol.events.wait(for: "sign-in ended 0/1")   // a member sees its own record
        await #expect(throws: SMeetingError.apiError(code: 40905, message: "\(started.signInId) has ended")) {
            try await carol.engine.signIn(signInId: started.signInId)
        }

        let call = try await host.engine.adminRollCall(uid: "carol", timeout: 30)
        try await carol.events.wait(for: "roll call carol")
        try await carol.engine.answerRollCall(rollCallId: call.signInId)
        try await host.events.wait(for: "roll call ended carol answered")
        await #expect(throws: SMeetingError.apiError(code: 40401, message: "nobody is not in the meeting")) {
            try await host.engine.adminRollCall(uid: "nobody")
        }

        try await host.engine.adminEndRoom()
        let stored = try await host.engine.getSignInResults(meetingId: meeting.meetingId)
        #expect(stored.map(\.signIn.kind) == [.signIn, .rollCall])
        #expect(stored.first?.records.map(\.uid) == ["bob", "carol"] && stored.first?.records.first?.signedAt == record.signedAt)
        #expect(stored.last?.records.map(\.uid) == ["carol"] && stored.last?.records.first?.signedAt != nil)
        #expect(stored.allSatisfy { $0.endedAt != nil })
        // The same through the signed server API.
        let (status, body) = try await server.call("/server/v1/meeting/sign_ins", ["meeting_id": meeting.meetingId])
        let results = try #require(body["results"] as? [[String: Any]])
        #expect(status == 200 && results.map { ($0["sign_in"] as? [String: Any])?["kind"] as? String } == ["sign_in", "roll_call"])
        let records = try #require(results.first?["records"] as? [[String: Any]])
        #expect(records.map { $0["uid"] as? String } == ["bob", "carol"] && records.map { $0["signed_at"] != nil } == [true, false])
        await #expect(throws: SMeetingError.unauthorized) { try await bob.engine.getSignInResults(meetingId: meeting.meetingId) }
        await server.stop()
    }
}
