import EgressProtocol

/// Where a task reports what happens (the worker's standard output; a test's list).
public protocol WorkerEvents: AnyObject, Sendable {
    func emit(_ event: WorkerEvent)
}

/// A running egress task: a composite or a recording.
public protocol EgressTask: AnyObject, Sendable {
    /// Joins the channel and starts producing; throws a `WorkerFailure` when that is impossible.
    func start() async throws
    /// Applies a command other than `stop`.
    func handle(_ command: WorkerCommand) async
    /// Finishes: files finalized, channel left. Reports `finished` (recordings) or `ended`.
    func stop(reason: String) async
}

/// Why a task could not run; `code` is the API error name the server reports.
public struct WorkerFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: String
    public var message: String

    public init(_ code: String, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}
