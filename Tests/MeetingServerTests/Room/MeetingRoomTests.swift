import SMeetingProtocol
import SRTCTestSupport
import Testing
@testable import MeetingServer

/// The rules of a live meeting, on a `MeetingRoom` without sockets and in virtual time
/// (`MeetingRoomHarness`): who gets in, what each role may do, the room's policies, the waiting
/// room, sub-meetings, sign-in and roll call, and a room continued from another node's record.
/// The socket-level suites (`MeetingSocketTests`, `MeetingFeatureSocketTests`, …) check the same
/// rules through the protocol; these pin the rules themselves, and their timers, exactly.
@Suite struct MeetingRoomTests {
    typealias H = MeetingRoomHarness

    // MARK: - Entry

    struct EntryCase: Sendable, CustomTestStringConvertible {
        let testDescription: String
        var req = MeetingCreateReq(title: "t")
        var locked = false
        var uid = "m1"
        var password: String?
        /// nil: admitted; "wait": in the waiting room; else the refusal's code.
        var expected: MeetingErrorCode?
        var waits = false
    }

    static let entryCases: [EntryCase] = [
        EntryCase(testDescription: "open meeting admits a member"),
        EntryCase(testDescription: "password meeting refuses no password", req: MeetingCreateReq(title: "t", attendType: .password, password: "1234"),
                  expected: .wrongPassword),
        EntryCase(testDescription: "password meeting refuses a wrong one", req: MeetingCreateReq(title: "t", attendType: .password, password: "1234"),
                  password: "4321", expected: .wrongPassword),
        EntryCase(testDescription: "password meeting admits the right one", req: MeetingCreateReq(title: "t", attendType: .password, password: "1234"),
                  password: "1234"),
        EntryCase(testDescription: "password meeting admits its host without one",
                  req: MeetingCreateReq(title: "t", attendType: .password, password: "1234"), uid: H.host),
        EntryCase(testDescription: "invitation meeting refuses the uninvited",
                  req: MeetingCreateReq(title: "t", attendType: .invitation, conferee: ["m2"]), expected: .notInvited),
        EntryCase(testDescription: "invitation meeting admits the invited",
                  req: MeetingCreateReq(title: "t", attendType: .invitation, conferee: ["m1"])),
        EntryCase(testDescription: "locked room refuses a member", locked: true, expected: .roomLocked),
        EntryCase(testDescription: "locked room admits the host", locked: true, uid: H.host),
        EntryCase(testDescription: "waiting room holds a member", req: MeetingCreateReq(title: "t", waitingRoom: true), waits: true),
        EntryCase(testDescription: "waiting room lets the host in", req: MeetingCreateReq(title: "t", waitingRoom: true), uid: H.host),
        EntryCase(testDescription: "a locked room refuses before the waiting room",
                  req: MeetingCreateReq(title: "t", waitingRoom: true), locked: true, expected: .roomLocked),
        EntryCase(testDescription: "the password is checked before the waiting room",
                  req: MeetingCreateReq(title: "t", attendType: .password, password: "1234", waitingRoom: true), expected: .wrongPassword),
    ]

    @Test(arguments: entryCases)
    func entry(_ c: EntryCase) async throws {
        let h = try H(c.req)
        if c.locked {
            // Locking takes the host; it leaves again when it is the one entering.
            try await h.entered(H.host)
            _ = try await h.room.run { try $0.lock(H.host, locked: true) }.get()
            if c.uid == H.host { await h.room.leave(H.host) }
        }
        let result = await h.enter(c.uid, password: c.password)
        switch (result, c.expected) {
        case (.success(let resp), nil):
            #expect(resp.waiting == c.waits)
            #expect((resp.rtc != nil) == !c.waits)
            #expect(resp.rtc?.channel == (c.waits ? nil : "mt_" + h.meeting.meetingId))
            #expect(await h.room.hasMember(c.uid) == !c.waits)
        case (.failure(let error), let code?):
            #expect(error.code == code.rawValue, "\(error.message)")
            #expect(await !h.room.hasMember(c.uid))
        default:
            Issue.record("\(c.testDescription): got \(result), expected \(c.expected.map { "\($0)" } ?? "admission")")
        }
    }

    @Test func aFullMeetingRefusesTheNextMemberButReplacesASecondSessionOfOne() async throws {
        let h = try H(MeetingCreateReq(title: "t"), maxMembers: 2)
        try await h.entered(H.host)
        let first = try await h.entered("m1")
        #expect(await h.enter("m2").failureCode == MeetingErrorCode.limitReached.rawValue)
        let again = try await h.entered("m1")  // replaces its first session, not a new member
        #expect(first.wasRemoved && first.types.last == "disconnected")
        #expect(!again.wasRemoved)
        #expect(await h.room.users.map(\.uid) == [H.host, "m1"])
    }

    // MARK: - Roles

    struct RoleCase: Sendable, CustomTestStringConvertible {
        let testDescription: String
        let actor: String
        let action: @Sendable (isolated MeetingRoom, String) throws -> Void
        let expected: MeetingErrorCode?
    }

    /// In a room with the host, co-host `co` and members `m1`, `m2`.
    static let roleCases: [RoleCase] = [
        RoleCase(testDescription: "a member cannot mute all", actor: "m1",
                 action: { room, uid in _ = try room.muteAll(uid, allowSelfUnmute: false) }, expected: .permissionDenied),
        RoleCase(testDescription: "a co-host can mute all", actor: "co",
                 action: { room, uid in _ = try room.muteAll(uid, allowSelfUnmute: false) }, expected: nil),
        RoleCase(testDescription: "a co-host cannot close the host's microphone", actor: "co",
                 action: { room, uid in _ = try room.closeMember(uid, target: H.host, .mic) }, expected: .permissionDenied),
        RoleCase(testDescription: "a co-host can close a member's microphone", actor: "co",
                 action: { room, uid in _ = try room.closeMember(uid, target: "m1", .mic) }, expected: nil),
        RoleCase(testDescription: "a co-host cannot make co-hosts", actor: "co",
                 action: { room, uid in _ = try room.setCoHost(uid, target: "m1", enable: true) }, expected: .permissionDenied),
        RoleCase(testDescription: "the host can make co-hosts", actor: H.host,
                 action: { room, uid in _ = try room.setCoHost(uid, target: "m1", enable: true) }, expected: nil),
        RoleCase(testDescription: "a co-host cannot hand the host role over", actor: "co",
                 action: { room, uid in _ = try room.transferHost(uid, target: "m1") }, expected: .permissionDenied),
        RoleCase(testDescription: "an admin cannot target itself", actor: H.host,
                 action: { room, uid in _ = try room.closeMember(uid, target: uid, .mic) }, expected: .invalidParameter),
        RoleCase(testDescription: "a member cannot start a sign-in", actor: "m1",
                 action: { room, uid in _ = try room.startSignIn(uid, duration: 60) }, expected: .permissionDenied),
        RoleCase(testDescription: "a member cannot create sub-meetings", actor: "m2",
                 action: { room, uid in _ = try room.createSubMeetings(uid, titles: ["a"]) }, expected: .permissionDenied),
        RoleCase(testDescription: "one not in the meeting cannot act", actor: "stranger",
                 action: { room, uid in _ = try room.muteAll(uid, allowSelfUnmute: true) }, expected: .notInMeeting),
    ]

    @Test(arguments: roleCases)
    func roles(_ c: RoleCase) async throws {
        let h = try H(MeetingCreateReq(title: "t"))
        for uid in [H.host, "co", "m1", "m2"] { try await h.entered(uid) }
        _ = try await h.room.run { try $0.setCoHost(H.host, target: "co", enable: true) }.get()
        let result = await h.room.run { room in try c.action(room, c.actor) }
        switch (result, c.expected) {
        case (.success, nil): break
        case (.failure(let error), let code?): #expect(error.code == code.rawValue, "\(error.message)")
        default: Issue.record("\(c.testDescription): got \(result)")
        }
    }

    // MARK: - Policies

    struct MicCase: Sendable, CustomTestStringConvertible {
        let testDescription: String
        var allowSelfUnmute: Bool
        var uid: String
        var byAdminRequest = false
        var expected: MeetingErrorCode?
    }

    static let micCases: [MicCase] = [
        MicCase(testDescription: "mute all without self-unmute refuses a member", allowSelfUnmute: false, uid: "m1", expected: .policyForbidden),
        MicCase(testDescription: "mute all with self-unmute lets a member unmute", allowSelfUnmute: true, uid: "m1"),
        MicCase(testDescription: "mute all never holds the host", allowSelfUnmute: false, uid: H.host),
        MicCase(testDescription: "a host's request lets a muted member open", allowSelfUnmute: false, uid: "m1", byAdminRequest: true),
    ]

    @Test(arguments: micCases)
    func muteAll(_ c: MicCase) async throws {
        let h = try H(MeetingCreateReq(title: "t"))
        try await h.entered(H.host)
        let m1 = try await h.entered("m1")
        _ = try await h.room.run { try $0.requestOpenMic("m1", OpenReq()) }.get()
        _ = try await h.room.run { try $0.muteAll(H.host, allowSelfUnmute: c.allowSelfUnmute) }.get()
        #expect(await h.room.users.first { $0.uid == "m1" }?.micState == .off, "mute all closed the member's microphone")
        #expect(m1.events(.roomChanged, as: RoomChangedEvent.self).last?.room.muteAll == true)
        if c.byAdminRequest { _ = try await h.room.run { try $0.requestOpen(H.host, target: "m1", kind: .mic) }.get() }
        let req = c.byAdminRequest ? OpenReq(byAdmin: true, adminUid: H.host) : OpenReq()
        let result = await h.room.run { try $0.requestOpenMic(c.uid, req) }
        switch (result, c.expected) {
        case (.success(let info), nil): #expect(info.micState == .on)
        case (.failure(let error), let code?): #expect(error.code == code.rawValue)
        default: Issue.record("\(c.testDescription): got \(result)")
        }
    }

    // MARK: - Waiting room

    @Test func theWaitingRoomHoldsMembersUntilAnAdminAdmitsOrRemovesThem() async throws {
        let h = try H(MeetingCreateReq(title: "t", waitingRoom: true))
        let host = try await h.entered(H.host)
        let w1 = try await h.entered("w1", waits: true)
        h.clock.advance(milliseconds: 1000)
        let w2 = try await h.entered("w2", waits: true)
        #expect(host.events(.waitingEntered, as: WaitingEnteredEvent.self).map(\.user.uid) == ["w1", "w2"])
        #expect(await h.room.waitingList.map(\.uid) == ["w1", "w2"], "longest first")

        _ = try await h.room.run { try $0.admit("w1", by: H.host) }.get()
        let admitted = try #require(w1.events(.waitingAdmitted, as: EnterRoomResp.self).first)
        #expect(admitted.rtc?.channel == "mt_" + h.meeting.meetingId && !admitted.waiting)
        #expect(await h.room.hasMember("w1"))

        _ = try await h.room.run { try $0.removeWaiting("w2", by: H.host) }.get()
        #expect(w2.types.last == "waiting_removed" && w2.wasRemoved)
        #expect(host.events(.waitingLeft, as: WaitingLeftEvent.self).map { "\($0.user.uid) \($0.reason.rawValue)" } == ["w1 admitted", "w2 removed"])
        #expect(await h.room.waitingList.isEmpty)
    }

    @Test func turningTheWaitingRoomOffAdmitsEveryoneWaiting() async throws {
        let h = try H(MeetingCreateReq(title: "t", waitingRoom: true))
        try await h.entered(H.host)
        let waiters = [try await h.entered("w1", waits: true), try await h.entered("w2", waits: true)]
        let room = try await h.room.run { try $0.setWaitingRoom(H.host, enabled: false) }.get()
        #expect(!room.waitingRoom && room.memberCount == 3)
        #expect(waiters.allSatisfy { $0.events(.waitingAdmitted, as: EnterRoomResp.self).count == 1 })
        try await h.entered("m3")  // and the next one enters directly
    }

    // MARK: - Sub-meetings

    @Test func closingSubMeetingsBringsEveryoneBackWhenTheCountdownEnds() async throws {
        let h = try H(MeetingCreateReq(title: "t"))
        let host = try await h.entered(H.host)
        let m1 = try await h.entered("m1")
        _ = try await h.room.run { try $0.createSubMeetings(H.host, titles: ["A", "B"]) }.get()
        _ = try await h.room.run { try $0.assignSubMeeting(H.host, AssignSubMeetingReq(subMeetingId: "S2", uids: ["m1"])) }.get()
        _ = try await h.room.run { try $0.openSubMeetings(H.host) }.get()
        let moved = try #require(m1.events(.subMeetingMoved, as: SubMeetingMovedEvent.self).last)
        #expect(moved.subMeeting?.subMeetingId == "S2" && moved.rtc.channel == "mt_\(h.meeting.meetingId).S2")

        let start = h.clock.now()
        _ = try await h.room.run { try $0.closeSubMeetings(H.host, countdown: 10) }.get()
        #expect(host.events(.subMeetingsClosing, as: SubMeetingsClosingEvent.self) == [SubMeetingsClosingEvent(countdown: 10, closesAt: start + 10_000)])
        await h.advance(seconds: 9.999)
        #expect(await h.room.users.first { $0.uid == "m1" }?.subMeetingId == "S2", "back before the countdown ended")
        #expect(await h.room.run { try $0.closeSubMeetings(H.host, countdown: 5) }.failureCode == MeetingErrorCode.wrongState.rawValue)
        await h.advance(seconds: 0.001)
        #expect(await h.room.users.first { $0.uid == "m1" }?.subMeetingId == nil)
        #expect(m1.events(.subMeetingMoved, as: SubMeetingMovedEvent.self).last?.rtc.channel == "mt_" + h.meeting.meetingId)
        #expect(host.types.contains("sub_meetings_closed"))
        #expect(await h.room.subMeetings.isEmpty)
        #expect(h.clock.pendingCount == 0)
    }

    // MARK: - Sign-in and roll call

    @Test func aSignInEndsAtItsDeadlineWithEveryAnswerStored() async throws {
        let h = try H(MeetingCreateReq(title: "t"))
        let host = try await h.entered(H.host)
        let m1 = try await h.entered("m1")
        try await h.entered("m2")
        let info = try await h.room.run { try $0.startSignIn(H.host, duration: 60) }.get()
        #expect(info.deadline == h.clock.now() + 60_000)
        h.clock.advance(milliseconds: 5000)
        let signed = try await h.room.run { try $0.signIn("m1", id: info.signInId) }.get()
        #expect(signed.signedAt == h.clock.now())
        try await h.entered("m3")  // asked too

        await h.advance(seconds: 54.999)
        #expect(await h.room.signIn != nil, "ended before its deadline")
        await h.advance(seconds: 0.001)
        #expect(await h.room.signIn == nil)
        let result = try #require(host.events(.signInEnded, as: SignInEndedEvent.self).first?.result)
        #expect(result.records.map { "\($0.uid) \($0.signedAt.map { _ in "signed" } ?? "-")" } == ["m1 signed", "m2 -", "m3 -"])
        #expect(result.endedAt == info.deadline)
        // A member sees its own answer only.
        #expect(m1.events(.signInEnded, as: SignInEndedEvent.self).first?.result.records.map(\.uid) == ["m1"])
        // Late answers are refused, and the store has the result.
        #expect(await h.room.run { try $0.signIn("m2", id: info.signInId) }.failureCode == MeetingErrorCode.deadlinePassed.rawValue)
        #expect(try h.store.signIns(appId: h.appId, meetingId: h.meeting.meetingId).first?.records.count == 3)
    }

    @Test func aRollCallUnansweredEndsAfterItsTimeout() async throws {
        let h = try H(MeetingCreateReq(title: "t"))
        let host = try await h.entered(H.host)
        let m1 = try await h.entered("m1")
        let m2 = try await h.entered("m2")
        let call = try await h.room.run { try $0.rollCall(H.host, RollCallReq(uid: "m1")) }.get()
        #expect(call.deadline == h.clock.now() + Int64(MeetingRoom.defaultRollCallSeconds) * 1000)
        #expect(m1.types.contains("roll_call") && !m2.types.contains("roll_call"), "only the member called and the admins hear it")
        await h.advance(seconds: Double(MeetingRoom.defaultRollCallSeconds))
        let result = try #require(host.events(.rollCallResult, as: SignInEndedEvent.self).first?.result)
        #expect(result.records.map(\.uid) == ["m1"] && result.records[0].signedAt == nil)
        #expect(m1.events(.rollCallResult, as: SignInEndedEvent.self).count == 1)
        #expect(await h.room.rollCalls.isEmpty)
    }

    @Test func aRoomThatEmptiesCancelsItsTimers() async throws {
        let h = try H(MeetingCreateReq(title: "t"))
        let host = try await h.entered(H.host)
        let m1 = try await h.entered("m1")
        _ = try await h.room.run { try $0.startSignIn(H.host, duration: 600) }.get()
        _ = try await h.room.run { try $0.rollCall(H.host, RollCallReq(uid: "m1", timeout: 600)) }.get()
        #expect(h.clock.pendingCount == 2)
        await h.room.exit(uid: "m1", connection: m1, reason: .exit)
        await h.room.exit(uid: H.host, connection: host, reason: .exit)
        #expect(h.emptied.isSet)
        #expect(h.clock.pendingCount == 0, "a closed room left timers behind")
    }

    // MARK: - A room continued on another node

    @Test func membersOfTheMovedRoomWhoDoNotComeBackInTimeLeaveIt() async throws {
        // The room as the previous node ran it: the host, m1 (microphone on) and m2 in it, w1 waiting.
        let before = try H(MeetingCreateReq(title: "t", waitingRoom: true))
        try await before.entered(H.host)
        try await before.entered("m1", waits: true)
        _ = try await before.room.run { try $0.admit("m1", by: H.host) }.get()
        _ = try await before.room.run { try $0.requestOpenMic("m1", OpenReq()) }.get()
        try await before.entered("m2", waits: true)
        _ = try await before.room.run { try $0.admit("m2", by: H.host) }.get()
        try await before.entered("w1", waits: true)
        let record = await before.room.record

        let after = try H(MeetingCreateReq(title: "t", waitingRoom: true), record: record, returnSeconds: 20)
        let host = try await after.entered(H.host)
        after.clock.advance(milliseconds: 10_000)
        // m1 comes back within the grace period, past the waiting room, with its microphone on.
        let m1 = try await after.entered("m1")
        #expect(await after.room.users.first { $0.uid == "m1" }?.micState == .on)
        #expect(await after.room.waitingList.map(\.uid) == ["w1"], "hosts keep seeing w1 while it moves")

        await after.advance(seconds: 9.999)
        #expect(host.events(.userExited, as: UserExitedEvent.self).isEmpty)
        await after.advance(seconds: 0.001)
        // m2 and w1 did not: they leave as they would have on the old node.
        #expect(host.events(.userExited, as: UserExitedEvent.self).map { "\($0.user.uid) \($0.reason.rawValue)" } == ["m2 disconnected"])
        #expect(m1.events(.userExited, as: UserExitedEvent.self).map(\.user.uid) == ["m2"])
        #expect(host.events(.waitingLeft, as: WaitingLeftEvent.self).map { "\($0.user.uid) \($0.reason.rawValue)" } == ["w1 left"])
        #expect(await after.room.waitingList.isEmpty)
        #expect(await after.room.record.members.map(\.uid).sorted() == [H.host, "m1"])
    }
}

extension MeetingRoom {
    /// `uid` leaves without the room closing, though it may be empty now.
    func leave(_ uid: String) {
        remove(uid, reason: .exit, notifyRemoved: false, closeIfEmpty: false)
    }
}

extension Result where Failure == MeetingErrorBody {
    /// The refusal's code; nil on success.
    var failureCode: Int? {
        if case .failure(let error) = self { return error.code }
        return nil
    }
}
