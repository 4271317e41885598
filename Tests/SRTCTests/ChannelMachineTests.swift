import SRTCProtocol
import Testing
@testable import SRTCCore

/// The channel's lifecycle rules (`ChannelMachine`): join, leave, losing and resuming the
/// session, moves between nodes and the CDN engine's stream, in virtual time and without sockets.
@Suite struct ChannelMachineTests {
    typealias Machine = ChannelMachine<Int>
    let parameters = MachineRun.parameters
    let info = MachineRun.info

    // MARK: - Reconnection, table-driven

    /// How the server answers one reconnection attempt.
    enum Answer: Sendable {
        /// No WebSocket opens.
        case unreachable
        /// `internal_error` (50001): the channel is moving or the node drains; ask again soon.
        case retry
        /// `token_expired` (40107): no retry can fix it.
        case tokenExpired
        /// The session is resumed.
        case resumed
        /// The server no longer had the session: the join made a new one.
        case newSession
    }

    struct Reconnection: Sendable, CustomTestStringConvertible {
        let name: String
        let grace: Int
        /// The answer to each attempt; the last one repeats.
        let answers: [Answer]
        /// When each attempt started (the connection dropped at 100).
        let startedAt: [Double]
        /// nil: reconnected; else the reason the session ended with.
        let endedWith: DisconnectReason?
        var testDescription: String { name }
    }

    static let reconnections: [Reconnection] = [
        // Backoff 0, 0.5, 1, 2, 4, 4…: the attempt after 115.5 would start at 119.5, not before
        // the grace period ends less the margin (100 + 20 - 0.5).
        Reconnection(name: "server unreachable for good: back off, give up within the grace period", grace: 20,
                     answers: [.unreachable], startedAt: [100, 100.5, 101.5, 103.5, 107.5, 111.5, 115.5], endedWith: .timeout),
        Reconnection(name: "a short grace period gives up sooner", grace: 5,
                     answers: [.unreachable], startedAt: [100, 100.5, 101.5, 103.5], endedWith: .timeout),
        Reconnection(name: "back on the third attempt", grace: 20,
                     answers: [.unreachable, .unreachable, .resumed], startedAt: [100, 100.5, 101.5], endedWith: nil),
        Reconnection(name: "a draining node is asked again every 0.25 s", grace: 20,
                     answers: [.retry, .retry, .retry, .resumed], startedAt: [100, 100.25, 100.5, 100.75], endedWith: nil),
        Reconnection(name: "an expired token ends at once", grace: 20,
                     answers: [.tokenExpired], startedAt: [100], endedWith: .tokenExpired),
        Reconnection(name: "a session the server ended is not resumed", grace: 20,
                     answers: [.newSession], startedAt: [100], endedWith: .timeout),
    ]

    @Test(arguments: ChannelMachineTests.reconnections)
    func reconnection(_ row: Reconnection) {
        var (run, _) = MachineRun.joined(grace: row.grace)
        var notices: [Machine.Notice] = []
        var ended: DisconnectReason?
        func collect(_ actions: [Machine.Action]) {
            for action in actions {
                if case .notify(let notice) = action { notices.append(notice) }
                if case .tearDown(let reason, _, _) = action { ended = reason }
            }
        }
        collect(run.send(.linkClosed(1)))
        var startedAt: [Double] = []
        while case let (attempt, due)? = run.fireNextTimer() {
            #expect(due == [.connect(attempt: attempt)])
            startedAt.append(run.now)
            let answer = row.answers[min(startedAt.count, row.answers.count) - 1]
            collect(play(answer, attempt: attempt, in: &run))
        }
        #expect(startedAt == row.startedAt)
        #expect(ended == row.endedWith)
        if row.endedWith == nil {
            #expect(notices == [.reconnecting, .reconnected(info)])
            #expect(run.machine.connection == .connected)
        } else {
            #expect(notices == [.reconnecting])
            #expect(run.machine.connection == .disconnected)
        }
    }

    /// Plays one attempt as the server answers it; returns the machine's actions after the answer.
    private func play(_ answer: Answer, attempt: Int, in run: inout MachineRun) -> [Machine.Action] {
        if case .unreachable = answer {
            return run.send(.attemptFailed(attempt: attempt, link: nil, error: .connectionFailed("refused")))
        }
        let link = run.newLink()
        #expect(run.send(.linkOpened(link, attempt: attempt)) == [.sendJoin(link, parameters, sessionId: "S1", attempt: attempt)])
        switch answer {
        case .unreachable:
            return []
        case .retry:
            let error = SRTCError.server(code: APIErrorCode.internalError.rawValue, message: "moving")
            return run.send(.attemptFailed(attempt: attempt, link: link, error: error))
        case .tokenExpired:
            let error = SRTCError.server(code: APIErrorCode.tokenExpired.rawValue, message: "expired")
            let actions = run.send(.attemptFailed(attempt: attempt, link: link, error: error))
            #expect(actions == [.close(link), .tearDown(.tokenExpired, error: error, closing: nil)])
            return actions
        case .resumed:
            return run.send(.resumeAnswered(MachineRun.response(resumed: true), on: link, attempt: attempt))
        case .newSession:
            let actions = run.send(.resumeAnswered(MachineRun.response(resumed: false), on: link, attempt: attempt))
            #expect(actions == [.abandonSession(link), .tearDown(.timeout, error: .disconnected(.timeout), closing: link)])
            return actions
        }
    }

    // MARK: - Join

    @Test func joinTellsJoinedThenUsersAndTracksThenTheEventsThatArrivedMeanwhile() throws {
        var run = MachineRun()
        try run.machine.begin(parameters)
        #expect(run.machine.connection == .connecting)
        #expect(run.send(.linkOpened(1, attempt: nil)) == [.sendJoin(1, parameters, sessionId: nil, attempt: nil)])
        // Events pushed before the join's answer wait for it.
        let bob = UserInfo(uid: "bob", joinedAt: 3)
        let b1 = MachineRun.track("b1", of: "bob")
        #expect(run.send(.received(.userJoined(bob), on: 1)) == [])
        #expect(run.send(.received(.trackAdded(TrackEvent(uid: "bob", track: b1)), on: 1)) == [])

        let a1 = MachineRun.track("a1", of: "alice")
        let alice = UserInfo(uid: "alice", joinedAt: 2, tracks: [a1])
        let h1 = MachineRun.track("h1", of: "composite")
        var answer = MachineRun.response(users: [alice])
        answer.hiddenTracks = [h1]
        let composite = UserInfo(uid: "composite", joinedAt: 0, tracks: [h1])
        let bobWithTrack = UserInfo(uid: "bob", joinedAt: 3, tracks: [b1])
        #expect(run.send(.joinAnswered(answer, on: 1)) == [
            .updateRelay([]), .startTicker, .notify(.joined(info)),
            .notify(.userJoined(alice)), .track(.addRemoteTrack(a1)), .notify(.trackAdded(a1, by: alice)),
            .track(.addRemoteTrack(h1)), .notify(.trackAdded(h1, by: composite)),
            .notify(.userJoined(bob)), .track(.addRemoteTrack(b1)), .notify(.trackAdded(b1, by: bobWithTrack)),
        ])
        #expect(run.machine.connection == .connected)
        #expect(run.machine.sessionId == "S1")
        #expect(run.machine.users.map(\.uid) == ["alice", "bob"])
        #expect(run.machine.hiddenPublishers == ["composite": composite])
        #expect(run.machine.remoteTrackIds == ["a1", "b1", "h1"])
    }

    @Test func aSecondJoinOrAJoinAfterDestroyIsRefused() {
        func refusal(_ machine: inout Machine, _ parameters: Channel.JoinParameters?) -> SRTCError? {
            do throws(SRTCError) {
                try machine.begin(parameters)
                return nil
            } catch {
                return error
            }
        }
        var machine = Machine()
        #expect(refusal(&machine, parameters) == nil)
        #expect(refusal(&machine, parameters) == .wrongState("join while connecting"))
        var played = Machine()
        #expect(refusal(&played, nil) == nil)
        #expect(refusal(&played, nil) == .wrongState("play while connecting"))
        var destroyed = Machine()
        destroyed.destroy()
        #expect(refusal(&destroyed, parameters) == .engineDestroyed)
    }

    @Test func aFailedJoinClosesItsConnectionAndAllowsAnother() throws {
        var run = MachineRun()
        try run.machine.begin(parameters)
        run.send(.linkOpened(1, attempt: nil))
        #expect(run.send(.joinFailed) == [.close(1)])
        #expect(run.machine.connection == .disconnected)
        try run.machine.begin(parameters)
        #expect(run.machine.connection == .connecting)
    }

    // MARK: - Leave

    @Test func leaveWhileJoiningAbandonsTheJoin() throws {
        var run = MachineRun()
        try run.machine.begin(parameters)
        #expect(run.send(.leave) == [.sendLeave(nil)])
        #expect(run.send(.left) == [.tearDown(.clientLeave, error: nil, closing: nil)])
        // The WebSocket that opens afterwards is closed, and so is a late answer's.
        #expect(run.send(.linkOpened(1, attempt: nil)) == [.close(1)])
        #expect(run.send(.joinAnswered(MachineRun.response(), on: 1)) == [.close(1)])
        #expect(run.machine.connection == .disconnected)
    }

    @Test func leaveDuringReconnectStopsTheAttemptsAndEndsOnce() {
        var (run, _) = MachineRun.joined()
        run.send(.linkClosed(1))
        let first = run.fireNextTimer()
        #expect(first?.actions == [.connect(attempt: 0)])
        let link = run.newLink()
        #expect(run.send(.linkOpened(link, attempt: 0)) == [.sendJoin(link, parameters, sessionId: "S1", attempt: 0)])
        // `leave` goes on the attempt's connection; its resume answer is no longer wanted.
        #expect(run.send(.leave) == [.sendLeave(link)])
        #expect(run.send(.resumeAnswered(MachineRun.response(resumed: true), on: link, attempt: 0)) == [.close(link)])
        #expect(run.send(.attemptFailed(attempt: 0, link: nil, error: .timeout("join"))) == [])
        #expect(run.send(.attemptDue(1)) == [])
        #expect(run.send(.left) == [.tearDown(.clientLeave, error: nil, closing: link)])
        #expect(run.timers.isEmpty)
        // Once ended, nothing ends it again.
        #expect(run.send(.leave) == [])
        #expect(run.send(.left) == [])
        #expect(run.send(.received(.disconnected(Disconnected(reason: .kicked)), on: link)) == [])
    }

    @Test func leaveBeforeTheFirstAttemptCancelsIt() {
        var (run, _) = MachineRun.joined()
        #expect(run.send(.linkClosed(1)) == [.notify(.reconnecting), .scheduleAttempt(0, after: 0)])
        #expect(run.send(.leave) == [.sendLeave(nil)])
        #expect(run.fireNextTimer()?.actions == [])
        #expect(run.send(.left) == [.tearDown(.clientLeave, error: nil, closing: nil)])
    }

    // MARK: - The server ends or moves the session

    @Test func aSessionTheServerEndedIsNeverResumed() {
        var (run, _) = MachineRun.joined(users: [UserInfo(uid: "alice", joinedAt: 2)])
        #expect(run.send(.received(.disconnected(Disconnected(reason: .kicked, message: "bye")), on: 1))
                == [.tearDown(.kicked, error: nil, closing: 1)])
        #expect(run.machine.users.isEmpty)
        // The WebSocket's close that follows changes nothing.
        #expect(run.send(.linkClosed(1)) == [])
        #expect(run.timers.isEmpty)
    }

    @Test func aReconnectNoticeClosesTheConnectionAndResumesAtOnce() {
        var (run, _) = MachineRun.joined()
        #expect(run.send(.received(.reconnect(ReconnectNotice(reason: "node_draining")), on: 1))
                == [.close(1), .notify(.reconnecting), .scheduleAttempt(0, after: 0)])
        #expect(run.machine.connection == .reconnecting)
        // The close of the connection it closed is stale.
        #expect(run.send(.linkClosed(1)) == [])
    }

    /// The local address toward the server changed (Wi-Fi ↔ cellular): the WebSocket bound to the
    /// old address is dropped and the session resumed at once; while already reconnecting, only
    /// the media paths are renewed.
    @Test func aMovedSignalingPathResumesOnANewConnectionAtOnce() {
        var (run, _) = MachineRun.joined()
        #expect(run.send(.signalingPathMoved) == [.close(1), .notify(.reconnecting), .scheduleAttempt(0, after: 0)])
        #expect(run.send(.signalingPathMoved) == [.restartBrokenPaths])
    }

    /// A resume on another node (`moved`): the old node's media goes before anything else, the
    /// local tracks are published again, and that is retried after every resume until it succeeds.
    @Test func aMovedSessionPublishesAgainUntilItSucceeds() {
        var (run, _) = MachineRun.joined()
        let camera = TrackInfo(id: "m1", uid: "me", kind: .video, desc: "camera")
        run.send(.track(.published(camera, local: ObjectIdentifier(Int.self))))
        var moved = MachineRun.response(resumed: true)
        moved.moved = true
        for expected in [[Machine.Action.updateRelay([]), .dropMovedMedia, .notify(.reconnected(info)), .republish],
                         [.updateRelay([]), .notify(.reconnected(info)), .republish]] {
            run.send(.linkClosed(run.machine.link ?? 1))
            let attempt = run.fireNextTimer()?.attempt ?? -1
            let link = run.newLink()
            run.send(.linkOpened(link, attempt: attempt))
            #expect(run.send(.resumeAnswered(moved, on: link, attempt: attempt)) == expected)
            moved.moved = nil
        }
        #expect(run.send(.track(.republished([camera]))) == [])
        run.send(.linkClosed(run.machine.link ?? 1))
        let attempt = run.fireNextTimer()?.attempt ?? -1
        let link = run.newLink()
        run.send(.linkOpened(link, attempt: attempt))
        #expect(run.send(.resumeAnswered(MachineRun.response(resumed: true), on: link, attempt: attempt))
                == [.updateRelay([]), .notify(.reconnected(info)), .restartBrokenPaths])
    }

    // MARK: - The CDN engine

    /// With nothing published there is nothing to publish again after a move.
    @Test func aMovedSessionWithNothingPublishedOnlyDropsTheOldMedia() {
        var (run, _) = MachineRun.joined()
        var moved = MachineRun.response(resumed: true)
        moved.moved = true
        run.send(.linkClosed(1))
        let attempt = run.fireNextTimer()?.attempt ?? -1
        run.send(.linkOpened(2, attempt: attempt))
        #expect(run.send(.resumeAnswered(moved, on: 2, attempt: attempt))
                == [.updateRelay([]), .dropMovedMedia, .notify(.reconnected(info)), .restartBrokenPaths])
        #expect(!run.machine.republishPending)
    }

    @Test func aStreamPlaysReconnectsAndEnds() throws {
        var run = MachineRun()
        try run.machine.begin(nil)
        let video = MachineRun.track("CDN_video", of: Channel.streamUid)
        let stream = UserInfo(uid: Channel.streamUid, joinedAt: 1, tracks: [video])
        #expect(run.send(.streamOpened(info, stream: stream)) == [
            .startTicker, .notify(.joined(info)), .notify(.userJoined(stream)), .track(.addRemoteTrack(video)),
            .notify(.trackAdded(video, by: stream)), .startStream,
        ])
        #expect(run.send(.streamLost) == [.notify(.reconnecting), .scheduleAttempt(0, after: 0)])
        #expect(run.fireNextTimer()?.actions == [.connect(attempt: 0)])
        #expect(run.send(.streamReopened(attempt: 0)) == [.startStream, .notify(.reconnected(info))])
        // A late reopen is stopped.
        #expect(run.send(.streamReopened(attempt: 0)) == [.discardStream])
        #expect(run.send(.streamFinished) == [.tearDown(.channelClosed, error: nil, closing: nil)])
    }

    @Test func aStreamOpenedAfterLeavingIsStopped() throws {
        var run = MachineRun()
        try run.machine.begin(nil)
        run.send(.leave)
        run.send(.left)
        #expect(run.send(.streamOpened(info, stream: UserInfo(uid: Channel.streamUid, joinedAt: 1))) == [.discardStream])
    }
}
