@testable import SMeeting
import SMeetingProtocol
import TestWait
import Testing

/// A meeting entered again on a session that replaced mine after its server node was lost, and a
/// session lost for good while in a meeting: the session's rules (`SMeetingMachine`) and the
/// meeting's (`SMeetingRoomMachine`) together, driven as the engine drives them, in virtual time
/// and without sockets.
@Suite struct SMeetingRejoinMachineTests {
    typealias F = SMeetingRoomFixture
    typealias Room = SMeetingRoomMachine
    typealias Session = SMeetingMachine<Int>

    /// Both machines as `SMeetingEngine` holds them, the session on link 1 at 100 s, in meeting `M1`
    /// with `bob`.
    struct Engine {
        var run = VirtualTimeRun(Session(policy: SMeetingEngine.resumePolicy))
        var room = F.entered()
        /// What the app was told and the channel's moves, from both machines, in order.
        var told: [Told] = []

        init(grace: Int) {
            run.send(.loggedIn(1, token: "T", sessionId: "S1", graceSeconds: grace))
            _ = room.handle(.server(.userEntered(F.bob)))
        }

        /// Carries out the session's actions as `SMeetingEngine+Resume` does; `answer` is how
        /// the rejoin's `enter_room` goes (nil: refused, to be retried).
        mutating func follow(_ actions: [Session.Action], answer: EnterRoomResp?, channelLived: Bool) {
            for action in actions {
                switch action {
                case .notifyReconnecting: told.append(.reconnecting)
                case .notifyReconnected: told.append(.reconnected)
                case .sessionLost:
                    record(room.handle(.sessionLost))
                    told.append(.connectionLost)
                case .rejoin(let link, let attempt):
                    guard let answer else {
                        follow(run.send(.attemptFailed(attempt: attempt, link: link)), answer: answer, channelLived: channelLived)
                        continue
                    }
                    let waited = room.room == nil
                    record(room.handle(.rejoinAnswered(answer)))
                    record(room.handle(.rejoinReturned(answer, waited: waited, channelJoined: channelLived)))
                    follow(run.send(.rejoined(link, attempt: attempt)), answer: answer, channelLived: channelLived)
                default: break
                }
            }
        }

        mutating func record(_ actions: [Room.Action]) {
            told += actions.map(Told.room)
        }

        /// The meeting WebSocket drops; every attempt opens a connection whose login answers `rejoin`.
        mutating func dropAndRejoin(answer: EnterRoomResp?, channelLived: Bool = true) {
            follow(run.send(.linkClosed(1)), answer: answer, channelLived: channelLived)
            while case let (attempt, _)? = run.fireNextTimer() {
                let link = run.newLink()
                follow(run.send(.resumeAnswered(link, attempt: attempt, .rejoin(sessionId: "S2"))), answer: answer, channelLived: channelLived)
            }
        }
    }

    enum Told: Equatable {
        case reconnecting, reconnected, connectionLost
        case room(Room.Action)
    }

    @Test func theMeetingEnteredAgainTellsNothingButWhatChanged() {
        var engine = Engine(grace: 20)
        // bob is not back yet on the new node: he stays listed.
        engine.dropAndRejoin(answer: F.answer(users: [F.host, F.me]))
        #expect(engine.told == [.reconnecting, .reconnected])
        #expect(engine.room.room == F.room && engine.room.users.keys.sorted() == ["bob", "host", "me"])
        #expect(engine.run.machine.sessionId == "S2")
        // He comes back: he never left.
        #expect(engine.room.handle(.server(.userEntered(F.bob))).first == .notify(.userInfoDidChange(F.bob)))
    }

    @Test func aRejoinRefusedUntilTheGracePeriodEndsTakesMeOutAndLogsMeOut() {
        var engine = Engine(grace: 1)
        engine.dropAndRejoin(answer: nil)
        #expect(engine.told == [.reconnecting, .room(.leaveChannel), .room(.notify(.didExitRoom(.disconnected))), .connectionLost])
        #expect(engine.room.place == .out && engine.room.me == nil)
        #expect(abs(engine.run.now - 100.9) < 0.001, "attempts every 0.3 s while they start within the grace period")
    }

    // MARK: - The rejoin's answer, table-driven

    struct Answer: Sendable, CustomTestStringConvertible {
        let name: String
        let waited: Bool
        let answer: EnterRoomResp
        let channelLived: Bool
        let actions: [Room.Action]
        var testDescription: String { name }
    }

    static let admitted = F.answer()

    static let answers: [Answer] = [
        Answer(name: "in the meeting, its channel lived on", waited: false, answer: F.answer(), channelLived: true, actions: []),
        Answer(name: "in the meeting, its channel ended: joined again", waited: false, answer: F.answer(), channelLived: false,
               actions: [.joinChannel(F.mainGrant, nickname: "Me in the room", .rejoin(admitted: nil))]),
        Answer(name: "waiting, still waiting", waited: true, answer: F.answer(waiting: true), channelLived: false, actions: []),
        Answer(name: "waiting, and the waiting room was switched off meanwhile: joined, then admitted", waited: true,
               answer: admitted, channelLived: false, actions: [.joinChannel(F.mainGrant, nickname: "Me in the room", .rejoin(admitted: F.room))]),
        Answer(name: "a nameless answer joins with my login name", waited: false,
               answer: EnterRoomResp(room: F.room, me: F.user("me", nickname: ""), users: [F.host], rtc: F.mainGrant), channelLived: false,
               actions: [.joinChannel(F.mainGrant, nickname: "Me", .rejoin(admitted: nil))]),
    ]

    @Test(arguments: SMeetingRejoinMachineTests.answers)
    func rejoinAnswer(_ row: Answer) {
        var room = row.waited ? F.entered(F.answer(waiting: true)) : F.entered()
        #expect(room.handle(.rejoinAnswered(row.answer)).isEmpty)
        #expect(room.handle(.rejoinReturned(row.answer, waited: row.waited, channelJoined: row.channelLived)) == row.actions)
        #expect((room.waitingRoom != nil) == row.answer.waiting)
    }

    @Test func anAdmissionDuringTheMoveIsToldWhetherOrNotTheChannelComesBack() {
        var room = F.entered()
        #expect(room.handle(.channelJoined(.rejoin(admitted: F.room))) == [.notify(.wasAdmitted(F.room))])
        #expect(room.handle(.channelFailed(.rejoin(admitted: F.room))) == [.notify(.wasAdmitted(F.room))])
        #expect(room.handle(.channelFailed(.rejoin(admitted: nil))).isEmpty)
    }

    @Test func aRejoinRefusedForGoodTakesMeOutButKeepsTheLogin() {
        var room = F.entered()
        #expect(room.handle(.rejoinRefused) == [.leaveChannel, .notify(.didExitRoom(.disconnected))])
        #expect(room.place == .out && room.me != nil)
    }

    @Test(arguments: [
        (SMeetingError.internalError("meeting connection closed"), true),
        (.apiError(code: MeetingErrorCode.internalError.rawValue, message: "node not ready"), true),
        (.apiError(code: MeetingErrorCode.rateLimited.rawValue, message: "slow down"), true),
        (.apiError(code: MeetingErrorCode.meetingClosed.rawValue, message: "ended"), false),
        (.notInMeeting, false),
        (.unauthorized, false),
    ])
    func whichRefusalsAreRetried(_ error: SMeetingError, _ retried: Bool) {
        #expect(Room.rejoinWorthRetrying(error) == retried)
    }
}
