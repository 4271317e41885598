/// A rules machine of the SDKs that schedules reconnection attempts (`ChannelMachine`,
/// `SMeetingMachine`): events in with the time, actions out, one of which asks for an attempt's
/// timer.
public protocol AttemptScheduling {
    associatedtype Event
    associatedtype Action
    mutating func handle(_ event: Event, now: Double) -> [Action]
    /// The event of attempt `attempt`'s timer.
    static func attemptDue(_ attempt: Int) -> Event
    /// The attempt timer `action` asks for, if it is one.
    static func scheduledAttempt(_ action: Action) -> (attempt: Int, after: Double)?
}

/// The attempt timers a machine asked for, fired in virtual time: the clock moves to each
/// deadline instead of waiting for it.
public struct AttemptTimers: Sendable {
    /// Seconds on the machine's monotonic clock.
    public var now: Double
    /// Attempt timers asked for that have not fired.
    public private(set) var pending: [(at: Double, attempt: Int)] = []

    public init(now: Double = 100) {
        self.now = now
    }

    public var isEmpty: Bool { pending.isEmpty }

    /// The earliest timer's attempt, the clock moved to its deadline; nil when none is left.
    public mutating func fireNext() -> Int? {
        guard let next = pending.indices.min(by: { pending[$0].at < pending[$1].at }) else { return nil }
        let timer = pending.remove(at: next)
        now = max(now, timer.at)
        return timer.attempt
    }

    mutating func schedule(_ attempt: Int, after delay: Double) {
        pending.append((now + delay, attempt))
    }
}

/// A machine driven by hand, without sockets: links are numbers, time is virtual, and the
/// attempts the machine schedules fire when `fireNextTimer` moves the clock to them.
public struct VirtualTimeRun<Machine: AttemptScheduling> {
    public var machine: Machine
    public private(set) var timers = AttemptTimers()
    private var lastLink = 1

    public init(_ machine: Machine) {
        self.machine = machine
    }

    /// Seconds on the machine's monotonic clock.
    public var now: Double { timers.now }

    /// Feeds one event at `now`, keeping the timers it schedules.
    @discardableResult
    public mutating func send(_ event: Machine.Event) -> [Machine.Action] {
        let actions = machine.handle(event, now: now)
        for case let (attempt, delay)? in actions.map(Machine.scheduledAttempt) { timers.schedule(attempt, after: delay) }
        return actions
    }

    /// Fires the earliest timer (the clock moves to its deadline); nil when none is left.
    public mutating func fireNextTimer() -> (attempt: Int, actions: [Machine.Action])? {
        guard let attempt = timers.fireNext() else { return nil }
        return (attempt, send(Machine.attemptDue(attempt)))
    }

    /// A new connection's number (1 is the first).
    public mutating func newLink() -> Int {
        lastLink += 1
        return lastLink
    }
}
