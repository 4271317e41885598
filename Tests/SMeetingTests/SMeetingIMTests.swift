import Foundation
import IMServer
import MeetingServer
import SMeeting
import SRTC
import SRTCServer
import SRTCTestSupport
import Synchronization
import Testing
import TestWait

/// SMeeting's `enableIm()`: calls and meeting reminders while not in a meeting.
@Suite struct SMeetingIMTests {
    /// Keeps the out-of-meeting events.
    final class IMEvents: SMeetingDelegate, @unchecked Sendable {
        let state = Mutex<(lines: [String], reminders: [MeetingReminder], invites: [IMMessage], all: [IMMessage])>(([], [], [], []))
        func meetingImDidConnect(_ meeting: SMeetingEngine) { state.withLock { $0.lines.append("im connected") } }
        func meeting(_ meeting: SMeetingEngine, imDidDisconnect error: SRTCError?) { state.withLock { $0.lines.append("im disconnected") } }
        func meeting(_ meeting: SMeetingEngine, didReceiveImMessage message: IMMessage) { state.withLock { $0.all.append(message) } }
        func meeting(_ meeting: SMeetingEngine, didReceiveCallInvite invite: IMMessage) { state.withLock { $0.invites.append(invite) } }
        func meeting(_ meeting: SMeetingEngine, didReceiveMeetingReminder reminder: MeetingReminder) { state.withLock { $0.reminders.append(reminder) } }
    }

    @Test func aReminderArrivesBeforeAScheduledMeetingAndACallRingsOutsideTheMeeting() async throws {
        let server = try TestServer(modules: [IMModule.factory, MeetingModule.factory]) {
            $0.im.meetingReminderSeconds = 600
            $0.im.meetingReminderScanSeconds = 1
        }
        let alice = try await TestMember(server: server, uid: "alice"), bob = try await TestMember(server: server, uid: "bob")
        let aliceIM = IMEvents(), bobIM = IMEvents()
        alice.engine.delegates.add(delegate: aliceIM)
        bob.engine.delegates.add(delegate: bobIM)
        await #expect(throws: SMeetingError.notLoggedIn) {
            try await SMeetingEngine(url: server.httpBase, independent: .init(delegateQueue: DispatchQueue(label: "x"))).enableIm()
        }
        try await alice.engine.enableIm()
        try await bob.engine.enableIm()
        #expect(bob.engine.isImEnabled)

        // Alice schedules a meeting in 5 minutes with bob invited: both get the reminder.
        let planTime = Int64(Date().timeIntervalSince1970) + 300
        let info = try await alice.engine.createRoom(MeetingCreateReq(title: "Planning", type: .appointment, conferee: ["bob"],
                                                                      planTime: planTime, planDur: 30))
        try await eventually("bob's reminder") { bobIM.state.withLock { !$0.reminders.isEmpty } }
        let reminder = try #require(bobIM.state.withLock { $0.reminders.first })
        #expect(reminder == MeetingReminder(meetingId: info.meetingId, roomNo: info.roomNo, title: "Planning", hostUid: "alice",
                                            planTime: planTime, planDur: 30))
        try await eventually("alice's reminder") { aliceIM.state.withLock { !$0.reminders.isEmpty } }

        // A call to join the meeting, outside it: bob's devices ring, he accepts, alice hears.
        let call = try await alice.engine.srtc.sendCallInvite(to: "bob", content: info.roomNo)
        try await eventually("the invitation") { bobIM.state.withLock { !$0.invites.isEmpty } }
        let invite = try #require(bobIM.state.withLock { $0.invites.first })
        #expect(invite.from == "alice" && invite.content == info.roomNo && invite.callId == call.callId)
        try await bob.engine.srtc.acceptCall(callId: call.callId)
        try await eventually("the answer") { aliceIM.state.withLock { $0.all.contains { $0.kind == .callAccepted } } }
        // …and bob enters by the room number the call carried.
        try await bob.engine.enterRoom(MeetingEnterReq(roomNo: invite.content))
        #expect(bob.engine.isInRoom)
        await bob.engine.logout()
        try await eventually("IM off at logout") { bobIM.state.withLock { $0.lines.contains("im disconnected") } }
        #expect(!bob.engine.isImEnabled)
        await alice.engine.logout()
        await server.stop()
    }
}
