import SMeetingProtocol

/// The rules of the meeting I am in, without I/O: entering (with the events that wait for its
/// snapshot), the waiting room and admission, the snapshot kept up to date by the server's events
/// (members, roles and devices, the waiting list, sub-meetings, sign-ins), moves between the main
/// meeting and its sub-meetings, a meeting entered again after a rejoin, and every way out (exit,
/// kicked, removed from the waiting room, ended, a replaced or lost session). It is the second half
/// of the engine's rules; `SMeetingMachine` is the session's.
///
/// `SMeetingEngine` feeds it what happened (a decoded server event, an answer, a public call, a
/// channel joined or failed) and carries out the actions it returns, in order: delegate calls, the
/// SRTC channel's switches and teardown, the devices a host closed, the E2EE key exchange's hooks.
/// The machine has no timer of its own (a sub-meeting countdown or a sign-in deadline is the
/// server's), reads no clock and does no I/O, so `SMeetingRoomMachineTests` table-tests it.
struct SMeetingRoomMachine: Sendable, Equatable {
    // MARK: - Types

    /// Where I am.
    enum Place: Sendable, Equatable {
        case out
        /// `enter_room` is in flight: events wait for its snapshot.
        case entering(buffered: [SMeetingServerEvent])
        case waiting(RoomInfo)
        case room(RoomInfo)
    }

    /// Why the meeting's SRTC channel is joined, which decides what follows it.
    enum Switch: Sendable, Equatable {
        /// The entry itself: `enterRoom` awaits it and fails with it.
        case entry
        /// A host let me in from the waiting room.
        case admitted(RoomInfo)
        /// The server moved me to a sub-meeting or back (`nil`).
        case moved(SubMeetingInfo?)
        /// My own visit (`adminVisitSubMeeting`, which awaits it and throws its failure).
        case visit(SubMeetingInfo?)
        /// The meeting entered again after a rejoin, whose channel had ended; `admitted`: the
        /// waiting room was switched off while my session moved.
        case rejoin(admitted: RoomInfo?)
    }

    /// A device of mine a host (or mute all, or a rule) closed: it is no longer published.
    enum Device: Sendable, Equatable { case mic, camera, screen, viewCapture }

    /// What the E2EE key exchange hears of the roster (`SMeetingEngine+E2EE`).
    enum E2EEHook: Sendable, Equatable {
        case memberEntered(String)
        case memberLeft(String)
        case hostChanged
    }

    /// What happened.
    enum Event: Sendable, Equatable {
        /// `login` answered (the nickname a move uses when the roster does not name me).
        case loggedIn(uid: String, nickname: String)
        /// `logout()`, after leaving the meeting.
        case loggedOut
        /// `enter_room` answered, on the reader before any later event: the snapshot.
        case entryAnswered(EnterRoomResp)
        /// `enterRoom` has the answer: wait, or join the channel.
        case entryReturned(EnterRoomResp)
        /// `enter_room` failed: the events held for it are dropped.
        case entryFailed
        /// A meeting event, decoded.
        case server(SMeetingServerEvent)
        case channelJoined(Switch)
        case channelFailed(Switch)
        /// `exitRoom()`.
        case exitAsked
        /// Out of the meeting after `exit_room` was sent (`nil`: the entry failed; no exit is told).
        case exited(ExitReason?)
        /// `adminEndRoom()` answered.
        case endedByMe
        /// The session is gone for good (`SMeetingMachine`'s `sessionLost`).
        case sessionLost
        /// The `enter_room` of a rejoin answered, on the reader: the snapshot.
        case rejoinAnswered(EnterRoomResp)
        /// The rejoin's `enterRoom` returned; `waited`: I was in the waiting room before;
        /// `channelJoined`: the channel lived through the move (SRTC resumed it).
        case rejoinReturned(EnterRoomResp, waited: Bool, channelJoined: Bool)
        /// The rejoin was refused for good (the meeting ended, I may no longer enter).
        case rejoinRefused
        /// `admin_visit_sub_meeting` answered.
        case visitAnswered(SubMeetingMovedEvent)
    }

    /// What the engine does, in this order.
    enum Action: Sendable, Equatable {
        case notify(SMeetingNotice)
        /// Leave the channel I am in (my tracks end with it) and join `grant`'s, after earlier
        /// switches; then `channelJoined` or `channelFailed`.
        case joinChannel(RTCGrant, nickname: String, Switch)
        /// Send `exit_room` (its answer awaited, its failure ignored), then feed `then`.
        case sendExit(then: Event)
        /// The stay ended: leave the channel in the background, stop my devices, the broadcast
        /// share and the speaker the meeting started.
        case leaveChannel
        case unpublish(Device)
        case e2ee(E2EEHook)
    }

    struct Me: Sendable, Equatable {
        let uid: String
        let nickname: String
    }

    // MARK: - State

    private(set) var me: Me?
    // Set by the rules of `+Events` and `+Snapshot` too (other files), hence not `private(set)`.
    var place = Place.out
    var users: [String: MeetingUserInfo] = [:]
    /// The waiting room as hosts and co-hosts see it.
    var waitingUsers: [String: WaitingUserInfo] = [:]
    var subMeetings: [SubMeetingInfo] = []
    /// The running sign-in and roll calls I was told about.
    var signIn: SignInInfo?
    var rollCalls: [String: SignInInfo] = [:]

    /// The meeting I am in (admitted).
    var room: RoomInfo? { if case .room(let room) = place { room } else { nil } }
    /// The meeting whose waiting room I am in.
    var waitingRoom: RoomInfo? { if case .waiting(let room) = place { room } else { nil } }
    /// In a meeting or its waiting room.
    var isIn: Bool { room != nil || waitingRoom != nil }
    /// The sub-meeting I am in; `nil` in the main meeting.
    var currentSubMeetingId: String? { me.flatMap { users[$0.uid]?.subMeetingId } }

    // MARK: - Commands

    /// `enterRoom`: `false` when I am in a meeting, its waiting room or entering one already.
    mutating func beginEntry() -> Bool {
        guard place == .out else { return false }
        place = .entering(buffered: [])
        return true
    }

    // MARK: - Events

    /// Takes one event and returns what to do, in order.
    mutating func handle(_ event: Event) -> [Action] {
        switch event {
        case .loggedIn(let uid, let nickname):
            me = Me(uid: uid, nickname: nickname)
            return []
        case .loggedOut:
            me = nil
            return []
        case .entryAnswered(let resp):
            return applySnapshot(resp)
        case .entryReturned(let resp):
            guard let rtc = resp.rtc else { return [.notify(.didEnterWaitingRoom(resp.room))] }
            return [.joinChannel(rtc, nickname: resp.me.nickname, .entry)]
        case .entryFailed:
            if case .entering = place { place = .out }
            return []
        case .server(let e):
            return serverEvent(e)
        case .channelJoined(let done):
            switch done {
            case .entry: return []
            case .admitted(let room): return [.notify(.wasAdmitted(room))]
            case .moved(let sub), .visit(let sub): return [.notify(.didMoveToSubMeeting(sub))]
            case .rejoin(let admitted): return admitted.map { [.notify(.wasAdmitted($0))] } ?? []
            }
        case .channelFailed(let failed):
            switch failed {
            // A channel never joined is no stay: the server is told I left.
            case .entry: return [.sendExit(then: .exited(nil))]
            case .admitted: return [.sendExit(then: .exited(.disconnected))]
            // A move has nobody to throw to; a visit throws to its caller and stays.
            case .moved: return leave(.disconnected)
            case .visit: return []
            // Entered again all the same (SRTC's channel may still come back on its own).
            case .rejoin(let admitted): return admitted.map { [.notify(.wasAdmitted($0))] } ?? []
            }
        case .exitAsked:
            return isIn ? [.sendExit(then: .exited(.exit))] : []
        case .exited(let reason):
            return leave(reason)
        case .endedByMe:
            return room != nil ? leave(.ended) : []
        case .sessionLost:
            defer { me = nil }
            return isIn ? leave(.disconnected) : []
        case .rejoinAnswered(let resp):
            applyRejoinSnapshot(resp)
            return []
        case .rejoinReturned(let resp, let waited, let channelJoined):
            // I waited, and the waiting room was switched off while my session moved: I am in.
            let admitted = waited && !resp.waiting ? resp.room : nil
            if let rtc = resp.rtc, !channelJoined {
                let nickname = resp.me.nickname.isEmpty ? (me?.nickname ?? "") : resp.me.nickname
                return [.joinChannel(rtc, nickname: nickname, .rejoin(admitted: admitted))]
            }
            return admitted.map { [.notify(.wasAdmitted($0))] } ?? []
        case .rejoinRefused:
            return leave(.disconnected)
        case .visitAnswered(let moved):
            return [.joinChannel(moved.rtc, nickname: moverNickname, .visit(moved.subMeeting))]
        }
    }
}
