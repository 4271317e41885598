@testable import SMeeting
import SMeetingProtocol
import Testing

/// The meeting's lifecycle (`SMeetingRoomMachine`) without sockets: entering (the events that
/// wait for its snapshot), the waiting room and admission, every way out, and what a failed
/// channel leads to. Each row starts from a place, feeds events, and checks what the engine is
/// told to do and where I am after.
@Suite struct SMeetingRoomMachineTests {
    typealias F = SMeetingRoomFixture
    typealias Machine = SMeetingRoomMachine
    typealias Start = SMeetingRoomFixture.Start

    // MARK: - Entering

    @Test func enteringAMeetingJoinsItsChannelWithMyNicknameThere() {
        var machine = F.loggedIn()
        #expect(machine.beginEntry() == true)
        #expect(machine.handle(.entryAnswered(F.answer())).isEmpty)
        #expect(machine.room == F.room && machine.users.keys.sorted() == ["host", "me"])
        #expect(machine.handle(.entryReturned(F.answer())) == [.joinChannel(F.mainGrant, nickname: "Me in the room", .entry)])
        #expect(machine.handle(.channelJoined(.entry)).isEmpty)
    }

    @Test func aMeetingWithAWaitingRoomTellsIAmWaitingAndJoinsNoChannel() {
        var machine = F.loggedIn()
        _ = machine.beginEntry()
        _ = machine.handle(.entryAnswered(F.answer(waiting: true)))
        #expect(machine.waitingRoom == F.waitingRoom && machine.room == nil && machine.users.isEmpty)
        #expect(machine.handle(.entryReturned(F.answer(waiting: true))) == [.notify(.didEnterWaitingRoom(F.waitingRoom))])
    }

    /// `beginEntry` from each place: a second entry is refused wherever I am but out.
    @Test(arguments: Start.allCases)
    func onlyOneEntryAtATime(_ start: Start) {
        var machine = start.machine
        #expect(machine.beginEntry() == (start == .out))
    }

    @Test func eventsThatArriveBeforeTheAnswerFollowItsSnapshotInOrder() {
        var machine = F.loggedIn()
        _ = machine.beginEntry()
        #expect(machine.handle(.server(.userEntered(F.bob))).isEmpty)
        #expect(machine.handle(.server(.chat(F.chat("hi")))).isEmpty)
        #expect(machine.handle(.entryAnswered(F.answer())) == [
            .notify(.userDidEnter(F.bob)), .e2ee(.memberEntered("bob")), .notify(.chat(F.chat("hi"))),
        ])
        #expect(machine.users["bob"] == F.bob)
    }

    @Test func aFailedEntryDropsTheEventsHeldForIt() {
        var machine = F.loggedIn()
        _ = machine.beginEntry()
        _ = machine.handle(.server(.userEntered(F.bob)))
        #expect(machine.handle(.entryFailed).isEmpty)
        #expect(machine.place == .out)
        #expect(machine.beginEntry() == true)
        #expect(machine.handle(.entryAnswered(F.answer())).isEmpty)
    }

    @Test func outsideAMeetingEventsAreDropped() {
        var machine = F.loggedIn()
        let was = machine
        for event: SMeetingServerEvent in [.userEntered(F.bob), .kicked(by: "host"), .roomEnded(by: nil), .waitingAdmitted(F.answer())] {
            #expect(machine.handle(.server(event)).isEmpty)
        }
        #expect(machine == was)
    }

    // MARK: - The waiting room

    @Test func admittedFromTheWaitingRoomTheChannelIsJoinedThenIAmTold() {
        var machine = F.entered(F.answer(waiting: true))
        let admitted = F.answer()
        #expect(machine.handle(.server(.waitingAdmitted(admitted))) == [.joinChannel(F.mainGrant, nickname: "Me in the room", .admitted(F.room))])
        #expect(machine.room == F.room && machine.users.count == 2)
        #expect(machine.handle(.channelJoined(.admitted(F.room))) == [.notify(.wasAdmitted(F.room))])
    }

    @Test func anAdmissionWithoutAChannelIsIgnored() {
        var machine = F.entered(F.answer(waiting: true))
        #expect(machine.handle(.server(.waitingAdmitted(F.answer(rtc: nil)))).isEmpty)
        #expect(machine.waitingRoom == F.waitingRoom)
    }

    // MARK: - Ways out

    struct Out: Sendable, CustomTestStringConvertible {
        let name: String
        let start: Start
        let event: Machine.Event
        let actions: [Machine.Action]
        /// Out of the meeting afterwards (its snapshot forgotten).
        let out: Bool
        var testDescription: String { name }
    }

    static let outs: [Out] = [
        Out(name: "kicked", start: .room, event: .server(.kicked(by: "host")),
            actions: [.leaveChannel, .notify(.wasKicked(by: "host")), .notify(.didExitRoom(.kicked))], out: true),
        Out(name: "the meeting ended", start: .room, event: .server(.roomEnded(by: "host")),
            actions: [.leaveChannel, .notify(.meetingDidEnd(by: "host")), .notify(.didExitRoom(.ended))], out: true),
        Out(name: "the meeting ended while I wait", start: .waiting, event: .server(.roomEnded(by: nil)),
            actions: [.leaveChannel, .notify(.meetingDidEnd(by: nil)), .notify(.didExitRoom(.ended))], out: true),
        Out(name: "logged in elsewhere", start: .room, event: .server(.disconnected(reason: "duplicate_login")),
            actions: [.leaveChannel, .notify(.didExitRoom(.duplicateLogin))], out: true),
        Out(name: "the server ends my session while I wait", start: .waiting, event: .server(.disconnected(reason: "shutdown")),
            actions: [.leaveChannel, .notify(.didExitRoom(.disconnected))], out: true),
        Out(name: "removed from the waiting room", start: .waiting, event: .server(.waitingRemoved(by: "host")),
            actions: [.leaveChannel, .notify(.wasRemovedFromWaitingRoom(by: "host")), .notify(.didExitRoom(.kicked))], out: true),
        Out(name: "a removal from the waiting room means nothing in the meeting", start: .room, event: .server(.waitingRemoved(by: "host")),
            actions: [], out: false),
        Out(name: "kicked is a meeting event: while I wait it means nothing", start: .waiting, event: .server(.kicked(by: "host")),
            actions: [], out: false),
        Out(name: "exitRoom tells the server first, the meeting stays until then", start: .room, event: .exitAsked,
            actions: [.sendExit(then: .exited(.exit))], out: false),
        Out(name: "exitRoom from the waiting room", start: .waiting, event: .exitAsked, actions: [.sendExit(then: .exited(.exit))], out: false),
        Out(name: "exitRoom outside a meeting does nothing", start: .out, event: .exitAsked, actions: [], out: true),
        Out(name: "out after the exit was sent", start: .room, event: .exited(.exit),
            actions: [.leaveChannel, .notify(.didExitRoom(.exit))], out: true),
        Out(name: "an exit after the meeting ended meanwhile tells nothing more", start: .out, event: .exited(.exit),
            actions: [.leaveChannel], out: true),
        Out(name: "I ended the meeting", start: .room, event: .endedByMe, actions: [.leaveChannel, .notify(.didExitRoom(.ended))], out: true),
        Out(name: "the session is lost", start: .room, event: .sessionLost, actions: [.leaveChannel, .notify(.didExitRoom(.disconnected))], out: true),
        Out(name: "the session is lost while I wait", start: .waiting, event: .sessionLost,
            actions: [.leaveChannel, .notify(.didExitRoom(.disconnected))], out: true),
        Out(name: "the session is lost outside a meeting", start: .out, event: .sessionLost, actions: [], out: true),
        Out(name: "the entry's channel failed: the server is told, no exit is reported", start: .room, event: .channelFailed(.entry),
            actions: [.sendExit(then: .exited(nil))], out: false),
        Out(name: "a stay that never began ends without an exit notice", start: .room, event: .exited(nil), actions: [.leaveChannel], out: true),
        Out(name: "the admission's channel failed", start: .room, event: .channelFailed(.admitted(F.room)),
            actions: [.sendExit(then: .exited(.disconnected))], out: false),
        Out(name: "a move's channel failed", start: .room, event: .channelFailed(.moved(F.sub)),
            actions: [.leaveChannel, .notify(.didExitRoom(.disconnected))], out: true),
        Out(name: "a visit's channel failed: its caller hears it, I stay", start: .room, event: .channelFailed(.visit(F.sub)),
            actions: [], out: false),
    ]

    @Test(arguments: SMeetingRoomMachineTests.outs)
    func waysOut(_ row: Out) {
        var machine = row.start.machine
        _ = machine.handle(.server(.userEntered(F.bob)))
        _ = machine.handle(.server(.signInStarted(F.signIn)))
        #expect(machine.handle(row.event) == row.actions)
        #expect(!machine.isIn == row.out)
        if row.out {
            #expect(machine.place == .out && machine.users.isEmpty && machine.signIn == nil && machine.subMeetings.isEmpty)
            #expect(machine.beginEntry() == true, "a new entry is possible")
        }
    }

    @Test func theSessionLostForgetsTheLoginToo() {
        var machine = F.entered()
        _ = machine.handle(.sessionLost)
        #expect(machine.me == nil)
    }
}
