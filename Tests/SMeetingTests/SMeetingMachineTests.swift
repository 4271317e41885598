@testable import SMeeting
import TestWait
import Testing

/// The meeting session's rules (`SMeetingMachine`): resuming a dropped meeting WebSocket with its
/// back-off and giving up, a session replaced after its node was lost (`rejoin`), which events
/// are new, and what is ignored when stale, in virtual time and without sockets.
@Suite struct SMeetingMachineTests {
    typealias Machine = SMeetingMachine<Int>

    /// Logged in on link 1, session `S1`, at 100 s of virtual time.
    static func run(grace: Int = 20) -> VirtualTimeRun<Machine> {
        var run = VirtualTimeRun(Machine(policy: SMeetingEngine.resumePolicy))
        run.send(.loggedIn(1, token: "T", sessionId: "S1", graceSeconds: grace))
        return run
    }

    // MARK: - Resuming, table-driven

    /// How the server answers one resume attempt: no WebSocket opens (or the login fails); the
    /// session is resumed; the server no longer knows it; it was lost with its node, and `S2`
    /// replaces it on which the meeting is entered again (`rejoin`), or entering again must be
    /// retried from a new connection (`rejoinRetry`).
    enum Answer: Sendable { case unreachable, resumed, newSession, rejoin, rejoinRetry }

    struct Resume: Sendable, CustomTestStringConvertible {
        let name: String
        let grace: Int
        /// The answer to each attempt; the last one repeats.
        let answers: [Answer]
        /// When each attempt started (the connection dropped at 100).
        let startedAt: [Double]
        let lost: Bool
        /// The session afterwards (nil: lost).
        let sessionId: String?
        var testDescription: String { name }
    }

    static let resumes: [Resume] = [
        // At once, then every 0.3 s while the attempt starts before the grace period ends (102).
        Resume(name: "server unreachable for good: every 0.3 s, give up at the end of the grace period", grace: 2,
               answers: [.unreachable], startedAt: [100, 100.3, 100.6, 100.9, 101.2, 101.5, 101.8], lost: true, sessionId: nil),
        Resume(name: "back on the third attempt", grace: 20,
               answers: [.unreachable, .unreachable, .resumed], startedAt: [100, 100.3, 100.6], lost: false, sessionId: "S1"),
        Resume(name: "a session the server no longer knows is lost", grace: 20,
               answers: [.newSession], startedAt: [100], lost: true, sessionId: nil),
        Resume(name: "a session lost with its node is replaced", grace: 20,
               answers: [.rejoin], startedAt: [100], lost: false, sessionId: "S2"),
        Resume(name: "a rejoin to retry is tried again from a new connection", grace: 20,
               answers: [.rejoinRetry, .rejoinRetry, .rejoin], startedAt: [100, 100.3, 100.6], lost: false, sessionId: "S2"),
        Resume(name: "a rejoin that keeps failing gives up as an unreachable server does", grace: 1,
               answers: [.rejoinRetry], startedAt: [100, 100.3, 100.6, 100.9], lost: true, sessionId: nil),
    ]

    @Test(arguments: SMeetingMachineTests.resumes)
    func resume(_ row: Resume) {
        var run = Self.run(grace: row.grace)
        var told: [Machine.Action] = []
        func collect(_ actions: [Machine.Action]) {
            told += actions.filter { [.notifyReconnecting, .notifyReconnected, .sessionLost].contains($0) }
        }
        collect(run.send(.linkClosed(1)))
        var startedAt: [Double] = []
        var link = 1
        while case let (attempt, due)? = run.fireNextTimer() {
            #expect(due == [.connect(attempt: attempt, token: "T", sessionId: "S1", lastSeq: 0)])
            startedAt.append((run.now * 1000).rounded() / 1000)
            link = run.newLink()
            switch row.answers[min(startedAt.count, row.answers.count) - 1] {
            case .unreachable:
                collect(run.send(.attemptFailed(attempt: attempt, link: nil)))
            case .resumed:
                collect(run.send(.resumeAnswered(link, attempt: attempt, .resumed)))
            case .newSession:
                let actions = run.send(.resumeAnswered(link, attempt: attempt, .newSession))
                #expect(actions.first == .close(link))
                collect(actions)
            case .rejoin, .rejoinRetry:
                #expect(run.send(.resumeAnswered(link, attempt: attempt, .rejoin(sessionId: "S2"))) == [.rejoin(link, attempt: attempt)])
                let retry = row.answers[min(startedAt.count, row.answers.count) - 1] == .rejoinRetry
                let actions = run.send(retry ? .attemptFailed(attempt: attempt, link: link) : .rejoined(link, attempt: attempt))
                if retry { #expect(actions.first == .close(link)) }
                collect(actions)
            }
        }
        #expect(startedAt == row.startedAt)
        #expect(told == [.notifyReconnecting] + (row.lost ? [.sessionLost] : [.notifyReconnected]))
        #expect(run.machine.sessionId == row.sessionId)
        #expect(run.machine.resuming == false)
        #expect(run.machine.isLive == !row.lost)
        #expect(run.machine.link == (row.lost ? nil : link))
    }

    // MARK: - Which events are new

    struct Sequence: Sendable, CustomTestStringConvertible {
        let name: String
        let arriving: [Int?]
        let delivered: [Int?]
        var testDescription: String { name }
    }

    static let sequences: [Sequence] = [
        Sequence(name: "in order", arriving: [1, 2, 3], delivered: [1, 2, 3]),
        Sequence(name: "a resumed session sends again what was handled", arriving: [1, 2, 3, 2, 3, 4], delivered: [1, 2, 3, 4]),
        Sequence(name: "an older number after a newer one is stale", arriving: [1, 5, 4, 6], delivered: [1, 5, 6]),
        Sequence(name: "unnumbered events always pass", arriving: [nil, 1, nil, 1, nil], delivered: [nil, 1, nil, nil]),
    ]

    @Test(arguments: SMeetingMachineTests.sequences)
    func sequence(_ row: Sequence) {
        var run = Self.run()
        var delivered: [Int?] = []
        for seq in row.arriving where run.send(.eventArrived(seq: seq)) == [.deliver] { delivered.append(seq) }
        #expect(delivered == row.delivered)
    }

    @Test func aResumeAsksForTheEventsAfterTheLastHandled() {
        var run = Self.run()
        for seq in [1, 2, 7] { run.send(.eventArrived(seq: seq)) }
        run.send(.linkClosed(1))
        #expect(run.fireNextTimer()?.actions == [.connect(attempt: 0, token: "T", sessionId: "S1", lastSeq: 7)])
    }

    @Test func aReplacingSessionNumbersFromOneAndARetriedRejoinGoesBackToTheOldNumbers() {
        var run = Self.run()
        for seq in [1, 2, 3] { run.send(.eventArrived(seq: seq)) }
        run.send(.linkClosed(1))
        _ = run.fireNextTimer()
        run.send(.resumeAnswered(2, attempt: 0, .rejoin(sessionId: "S2")))
        // The new session's first events, while the meeting is entered again.
        #expect(run.send(.eventArrived(seq: 1)) == [.deliver])
        run.send(.attemptFailed(attempt: 0, link: 2))
        #expect(run.machine.lastSeq == 3)
        #expect(run.fireNextTimer()?.actions == [.connect(attempt: 1, token: "T", sessionId: "S1", lastSeq: 3)])
        run.send(.resumeAnswered(3, attempt: 1, .rejoin(sessionId: "S2")))
        #expect(run.send(.rejoined(3, attempt: 1)) == [.notifyReconnected])
        #expect(run.machine.lastSeq == 0 && run.machine.sessionId == "S2" && run.machine.link == 3)
    }

    // MARK: - Stale and duplicate

    /// One stale happening after a resume began (attempt 0 due, connection 2 opened for it).
    struct Stale: Sendable, CustomTestStringConvertible {
        let name: String
        /// What happens first (nil: nothing).
        let before: Machine.Event?
        let event: Machine.Event
        let actions: [Machine.Action]
        var testDescription: String { name }
    }

    static let stale: [Stale] = [
        Stale(name: "the old connection closing again", before: nil, event: .linkClosed(1), actions: []),
        Stale(name: "an attempt that is not the current one is due", before: nil, event: .attemptDue(3), actions: []),
        Stale(name: "an old attempt's answer closes its connection",
              before: .attemptFailed(attempt: 0, link: nil), event: .resumeAnswered(2, attempt: 0, .resumed), actions: [.close(2)]),
        Stale(name: "an old attempt failing again schedules nothing",
              before: .attemptFailed(attempt: 0, link: nil), event: .attemptFailed(attempt: 0, link: 2), actions: [.close(2)]),
        Stale(name: "a second answer after the resume closes its connection",
              before: .resumeAnswered(2, attempt: 0, .resumed), event: .resumeAnswered(3, attempt: 0, .resumed), actions: [.close(3)]),
        Stale(name: "a rejoin without its answer closes its connection", before: nil, event: .rejoined(2, attempt: 0), actions: [.close(2)]),
    ]

    @Test(arguments: SMeetingMachineTests.stale)
    func staleIsIgnored(_ row: Stale) {
        var run = Self.run()
        run.send(.linkClosed(1))
        _ = run.fireNextTimer()
        if let before = row.before { run.send(before) }
        let was = run.machine
        #expect(run.send(row.event) == row.actions)
        #expect(run.machine == was)
    }

    @Test func aResumedConnectionIsTheLiveOneAndItsDropResumesAgain() {
        var run = Self.run()
        run.send(.linkClosed(1))
        _ = run.fireNextTimer()
        #expect(run.send(.resumeAnswered(2, attempt: 0, .resumed)) == [.notifyReconnected])
        #expect(run.machine.link == 2)
        #expect(run.send(.linkClosed(1)).isEmpty)
        #expect(run.send(.linkClosed(2)) == [.notifyReconnecting, .scheduleAttempt(0, after: 0)])
    }

    @Test func logoutStopsTheResumeWithoutLosingTheSession() {
        var run = Self.run()
        run.send(.linkClosed(1))
        let due = run.fireNextTimer()
        #expect(run.machine.logOut() == nil)  // no live connection while resuming
        #expect(!run.machine.isLive)
        #expect(run.send(.resumeAnswered(2, attempt: due?.attempt ?? -1, .resumed)) == [.close(2)])
        #expect(run.send(.attemptFailed(attempt: 0, link: nil)).isEmpty)
        #expect(run.fireNextTimer() == nil)
    }

    @Test func aConnectionClosedBeforeLoginOrAfterLogoutIsNoResume() {
        var fresh = Machine(policy: SMeetingEngine.resumePolicy)
        #expect(fresh.handle(.linkClosed(1), now: 0).isEmpty && !fresh.isLive)
        var run = Self.run()
        #expect(run.machine.logOut() == 1)
        #expect(run.send(.linkClosed(1)).isEmpty)
        #expect(run.machine.token == nil && !run.machine.isLive)
    }

    @Test func aNewLoginStartsAFreshSession() {
        var run = Self.run(grace: 1)
        run.send(.eventArrived(seq: 9))
        run.send(.linkClosed(1))
        while case let (attempt, _)? = run.fireNextTimer() { run.send(.attemptFailed(attempt: attempt, link: nil)) }
        #expect(!run.machine.isLive && run.machine.sessionId == nil)
        run.send(.loggedIn(5, token: "T2", sessionId: "S3", graceSeconds: 20))
        #expect(run.machine.isLive && run.machine.lastSeq == 0 && run.machine.link == 5)
        #expect(run.send(.eventArrived(seq: 1)) == [.deliver])
        #expect(run.send(.linkClosed(5)) == [.notifyReconnecting, .scheduleAttempt(0, after: 0)])
    }
}

extension SMeetingMachine: AttemptScheduling {
    public static func attemptDue(_ attempt: Int) -> Event { .attemptDue(attempt) }

    public static func scheduledAttempt(_ action: Action) -> (attempt: Int, after: Double)? {
        guard case .scheduleAttempt(let attempt, let delay) = action else { return nil }
        return (attempt, delay)
    }
}
