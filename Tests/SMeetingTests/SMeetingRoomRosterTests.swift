@testable import SMeeting
import SMeetingProtocol
import Testing

/// What the meeting's events do to its snapshot and what they tell (`SMeetingRoomMachine`),
/// without sockets: members entering, leaving and changing (roles, devices, the host's closing of
/// mine), the room, the waiting list as hosts see it, sub-meetings and moves between them,
/// sign-ins and roll calls.
@Suite struct SMeetingRoomRosterTests {
    typealias F = SMeetingRoomFixture
    typealias Machine = SMeetingRoomMachine

    struct Row: Sendable, CustomTestStringConvertible {
        let name: String
        /// Events first (in the meeting, `host` and `me` in it).
        var before: [SMeetingServerEvent] = []
        let event: SMeetingServerEvent
        let actions: [Machine.Action]
        /// What the snapshot holds afterwards.
        var check: @Sendable (Machine) -> Bool = { _ in true }
        var testDescription: String { name }
    }

    static let micOn = F.user("me", nickname: "Me in the room", mic: .on)
    static let micOff = F.user("me", nickname: "Me in the room", mic: .off)
    static let bobHost = F.user("bob", role: .coHost)
    static let sharing = RoomInfo(meetingId: "M1", roomNo: "100", title: "Weekly", hostUid: "host", type: .instant, mode: .normal,
                                  attendType: .open, status: .ongoing, sharingUid: "bob", shareType: 1, startedAt: 1)
    static let handedOver = RoomInfo(meetingId: "M1", roomNo: "100", title: "Weekly", hostUid: "bob", type: .instant, mode: .normal,
                                     attendType: .open, status: .ongoing, startedAt: 1)
    static let waiter = WaitingUserInfo(uid: "carol", nickname: "Carol", since: 5)
    static let ended = SignInResult(signIn: F.signIn, endedAt: 60, records: [])
    static let rollCallEnded = SignInResult(signIn: F.rollCall, endedAt: 30, records: [])

    static let rows: [Row] = [
        Row(name: "a member enters", event: .userEntered(F.bob), actions: [.notify(.userDidEnter(F.bob)), .e2ee(.memberEntered("bob"))],
            check: { $0.users["bob"] == F.bob }),
        Row(name: "a member I still list enters again after its node was lost: it never left", before: [.userEntered(F.bob)],
            event: .userEntered(F.bob), actions: [.notify(.userInfoDidChange(F.bob)), .e2ee(.memberEntered("bob"))]),
        Row(name: "a member leaves", before: [.userEntered(F.bob)], event: .userExited(F.bob, .exit),
            actions: [.notify(.userDidExit(F.bob, .exit)), .e2ee(.memberLeft("bob"))], check: { $0.users["bob"] == nil }),
        Row(name: "a member becomes co-host", before: [.userEntered(F.bob)], event: .userChanged(bobHost, fields: ["role"]),
            actions: [.notify(.userFieldDidChange(.role, bobHost)), .notify(.userInfoDidChange(bobHost))],
            check: { $0.users["bob"]?.role == .coHost }),
        Row(name: "a field without a method of its own is told as a change only", event: .userChanged(F.bob, fields: ["nickname"]),
            actions: [.notify(.userInfoDidChange(F.bob))]),
        Row(name: "each field named is told, in order", event: .userChanged(F.bob, fields: ["hand_raised", "presenter", "chat_disabled"]),
            actions: [.notify(.userFieldDidChange(.hand, F.bob)), .notify(.userFieldDidChange(.presenter, F.bob)),
                      .notify(.userFieldDidChange(.chatDisabled, F.bob)), .notify(.userInfoDidChange(F.bob))]),
        Row(name: "the host closes my microphone: it is no longer published", before: [.userChanged(micOn, fields: ["mic_state"])],
            event: .userChanged(micOff, fields: ["mic_state"]),
            actions: [.unpublish(.mic), .notify(.userFieldDidChange(.mic, micOff)), .notify(.userInfoDidChange(micOff))]),
        Row(name: "my camera, screen and view capture closed at once",
            before: [.userChanged(F.user("me", camera: .on, share: 1, viewCapture: true), fields: [])],
            event: .userChanged(F.user("me"), fields: []),
            actions: [.unpublish(.camera), .unpublish(.screen), .unpublish(.viewCapture), .notify(.userInfoDidChange(F.user("me")))]),
        Row(name: "moved to a sub-meeting with the mic closed: the move ends it, nothing to unpublish",
            before: [.userChanged(micOn, fields: [])], event: .userChanged(F.user("me", sub: "S1"), fields: ["mic_state"]),
            actions: [.notify(.userFieldDidChange(.mic, F.user("me", sub: "S1"))), .notify(.userInfoDidChange(F.user("me", sub: "S1")))],
            check: { $0.currentSubMeetingId == "S1" }),
        Row(name: "another member's microphone closes: nothing of mine changes",
            before: [.userChanged(F.user("bob", mic: .on), fields: [])], event: .userChanged(F.bob, fields: ["mic_state"]),
            actions: [.notify(.userFieldDidChange(.mic, F.bob)), .notify(.userInfoDidChange(F.bob))]),
        Row(name: "sharing starts", event: .roomChanged(sharing, fields: ["sharing"]),
            actions: [.notify(.roomShareDidStart(uid: "bob", .screen)), .notify(.roomInfoDidChange(sharing))], check: { $0.room == sharing }),
        Row(name: "sharing stops", before: [.roomChanged(sharing, fields: ["sharing"])], event: .roomChanged(F.room, fields: ["sharing"]),
            actions: [.notify(.roomShareDidStop(uid: "bob")), .notify(.roomInfoDidChange(F.room))]),
        Row(name: "the host hands over: the key exchange hears it", event: .roomChanged(handedOver, fields: ["host_uid"]),
            actions: [.notify(.roomInfoDidChange(handedOver)), .e2ee(.hostChanged)]),
        Row(name: "a chat message and a host's request", before: [.chat(F.chat("hi"))], event: .adminRequest(.camera, adminUid: "host"),
            actions: [.notify(.adminRequestsCamera(adminUid: "host"))]),
        Row(name: "someone waits (hosts see it)", event: .waitingEntered(waiter), actions: [.notify(.waitingUserDidEnter(waiter))],
            check: { $0.waitingUsers["carol"] == waiter }),
        Row(name: "someone stops waiting", before: [.waitingEntered(waiter)], event: .waitingLeft(waiter, .admitted),
            actions: [.notify(.waitingUserDidLeave(waiter, .admitted))], check: { $0.waitingUsers.isEmpty }),
        Row(name: "the waiting list of a new co-host replaces what it knew", before: [.waitingEntered(waiter)],
            event: .waitingList([WaitingUserInfo(uid: "dan", nickname: "Dan", since: 6)]), actions: [],
            check: { $0.waitingUsers.keys.sorted() == ["dan"] }),
        Row(name: "an admission is for those who wait", event: .waitingAdmitted(F.answer()), actions: []),
        Row(name: "sub-meetings change", event: .subMeetingsChanged([F.sub]), actions: [.notify(.subMeetingsDidChange([F.sub]))],
            check: { $0.subMeetings == [F.sub] }),
        Row(name: "moved into a sub-meeting: its channel is joined with my name in the roster",
            event: .subMeetingMoved(SubMeetingMovedEvent(subMeeting: F.sub, rtc: F.subGrant)),
            actions: [.joinChannel(F.subGrant, nickname: "Me in the room", .moved(F.sub))]),
        Row(name: "back to the main meeting", event: .subMeetingMoved(SubMeetingMovedEvent(subMeeting: nil, rtc: F.mainGrant)),
            actions: [.joinChannel(F.mainGrant, nickname: "Me in the room", .moved(nil))]),
        Row(name: "the sub-meetings close with a countdown", before: [.subMeetingBroadcast(F.chat("back in 1 min"))],
            event: .subMeetingsClosing(countdown: 10), actions: [.notify(.subMeetingsWillClose(countdown: 10))]),
        Row(name: "the sub-meetings closed", event: .subMeetingsClosed, actions: [.notify(.subMeetingsDidClose)]),
        Row(name: "help asked from a sub-meeting", event: .subMeetingHelp(uid: "bob", subMeetingId: "S1"),
            actions: [.notify(.subMeetingHelp(uid: "bob", subMeetingId: "S1"))]),
        Row(name: "a sign-in starts", event: .signInStarted(F.signIn), actions: [.notify(.signInDidStart(F.signIn))],
            check: { $0.signIn == F.signIn }),
        Row(name: "a sign-in ends", before: [.signInStarted(F.signIn)], event: .signInEnded(ended), actions: [.notify(.signInDidEnd(ended))],
            check: { $0.signIn == nil }),
        Row(name: "a roll call of me, answered", before: [.rollCall(F.rollCall)], event: .rollCallResult(rollCallEnded),
            actions: [.notify(.rollCallDidEnd(rollCallEnded))], check: { $0.rollCalls.isEmpty }),
        Row(name: "a roll call runs", event: .rollCall(F.rollCall), actions: [.notify(.rollCallDidStart(F.rollCall))],
            check: { $0.rollCalls["R1"] == F.rollCall }),
    ]

    @Test(arguments: SMeetingRoomRosterTests.rows)
    func event(_ row: Row) {
        var machine = F.entered()
        for event in row.before { _ = machine.handle(.server(event)) }
        #expect(machine.handle(.server(row.event)) == row.actions)
        #expect(row.check(machine))
        #expect(machine.room != nil, "still in the meeting")
    }

    // MARK: - Moves

    @Test func aMoveIsToldOnceTheNewChannelIsJoined() {
        var machine = F.entered()
        #expect(machine.handle(.channelJoined(.moved(F.sub))) == [.notify(.didMoveToSubMeeting(F.sub))])
        #expect(machine.handle(.channelJoined(.moved(nil))) == [.notify(.didMoveToSubMeeting(nil))])
    }

    @Test func myVisitJoinsTheSubMeetingsChannelAndIsToldAsAMove() {
        var machine = F.entered()
        let moved = SubMeetingMovedEvent(subMeeting: F.sub, rtc: F.subGrant)
        #expect(machine.handle(.visitAnswered(moved)) == [.joinChannel(F.subGrant, nickname: "Me in the room", .visit(F.sub))])
        #expect(machine.handle(.channelJoined(.visit(F.sub))) == [.notify(.didMoveToSubMeeting(F.sub))])
    }

    @Test func aMoveWithoutMeInTheRosterUsesMyLoginName() {
        var machine = F.entered(F.answer(users: [F.host]))
        #expect(machine.handle(.server(.subMeetingMoved(SubMeetingMovedEvent(subMeeting: F.sub, rtc: F.subGrant))))
                == [.joinChannel(F.subGrant, nickname: "Me", .moved(F.sub))])
    }
}
