import SRTCProtocol
import TestWait
@testable import SRTCCore

/// A `ChannelMachine` driven by hand in virtual time (`VirtualTimeRun`), with the fixtures its
/// tests share.
typealias MachineRun = VirtualTimeRun<ChannelMachine<Int>>

extension ChannelMachine: AttemptScheduling {
    public static func attemptDue(_ attempt: Int) -> Event { .attemptDue(attempt) }

    public static func scheduledAttempt(_ action: Action) -> (attempt: Int, after: Double)? {
        guard case .scheduleAttempt(let attempt, let delay) = action else { return nil }
        return (attempt, delay)
    }
}

extension VirtualTimeRun where Machine == ChannelMachine<Int> {
    static var parameters: Channel.JoinParameters { .init(webSocketURL: "ws://server/rtc/v1/ws", token: "T", nickname: nil, custom: nil) }
    static var info: ChannelInfo { ChannelInfo(channel: "room", createdAt: 1, userCount: 1) }
    static var me: UserInfo { UserInfo(uid: "me", joinedAt: 1) }

    init() {
        self.init(ChannelMachine<Int>(policy: ReconnectMachine.Policy(delays: [0, 0.5, 1, 2, 4], margin: 0.5, retryDelay: 0.25)))
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
