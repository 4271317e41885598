import SRTCProtocol
@testable import SRTCCore

/// A `ChannelMachine` driven by hand, without sockets: links are numbers, time is virtual, and
/// the attempts the machine schedules fire when `fireNextTimer` moves the clock to them.
struct MachineRun {
    typealias Machine = ChannelMachine<Int>

    static let parameters = Channel.JoinParameters(webSocketURL: "ws://server/rtc/v1/ws", token: "T", nickname: nil, custom: nil)
    static let info = ChannelInfo(channel: "room", createdAt: 1, userCount: 1)
    static let me = UserInfo(uid: "me", joinedAt: 1)

    var machine = Machine(policy: ReconnectMachine.Policy(delays: [0, 0.5, 1, 2, 4], margin: 0.5, retryDelay: 0.25))
    /// Seconds on the machine's monotonic clock.
    var now = 100.0
    /// Attempt timers the machine asked for and that have not fired.
    private(set) var timers: [(at: Double, attempt: Int)] = []
    private var lastLink = 1

    /// Feeds one event at `now`, keeping the timers it schedules.
    @discardableResult
    mutating func send(_ event: Machine.Event) -> [Machine.Action] {
        let actions = machine.handle(event, now: now)
        for case .scheduleAttempt(let attempt, let delay) in actions { timers.append((now + delay, attempt)) }
        return actions
    }

    /// Fires the earliest timer (the clock moves to its deadline); nil when none is left.
    mutating func fireNextTimer() -> (attempt: Int, actions: [Machine.Action])? {
        guard let next = timers.indices.min(by: { timers[$0].at < timers[$1].at }) else { return nil }
        let timer = timers.remove(at: next)
        now = max(now, timer.at)
        return (timer.attempt, send(.attemptDue(timer.attempt)))
    }

    /// A new signaling connection's number.
    mutating func newLink() -> Int {
        lastLink += 1
        return lastLink
    }

    /// A machine joined on link 1 (session `S1`), with the join's actions.
    static func joined(users: [UserInfo] = [], grace: Int = 20) -> (MachineRun, [Machine.Action]) {
        var run = MachineRun()
        try? run.machine.begin(parameters)
        run.send(.linkOpened(1, attempt: nil))
        let actions = run.send(.joinAnswered(response(users: users, grace: grace), on: 1))
        return (run, actions)
    }

    /// A join (or resume) answer.
    static func response(users: [UserInfo] = [], grace: Int = 20, resumed: Bool = false, info: ChannelInfo = info) -> JoinResponse {
        JoinResponse(sessionId: "S1", resumed: resumed, channel: info, me: me, users: users, reconnectGraceSeconds: grace, serverTime: 0)
    }

    static func track(_ id: String, of uid: String, _ kind: TrackKind = .video, muted: Bool = false) -> TrackInfo {
        TrackInfo(id: id, uid: uid, kind: kind, desc: kind == .video ? "camera" : "microphone", muted: muted)
    }
}
