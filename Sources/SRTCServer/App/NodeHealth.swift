import Foundation
import Synchronization

/// What a load balancer and an orchestrator are told about this node: `/healthz` (liveness: the
/// process serves, and the services it depends on answer) and `/readyz` (readiness: send new
/// clients here). A node whose database or Redis stopped answering keeps serving what it can and
/// says why it is unhealthy; a draining node is healthy but not ready, so a balancer stops
/// sending it reconnections while it hands its channels over (docs/deploy.md, "Health and
/// readiness").
public final class NodeHealth: Sendable {
    /// A service this node needs.
    public enum Dependency: String, Sendable, CaseIterable {
        case database, redis
    }

    struct State: Sendable, Equatable {
        /// Why each failing dependency failed (absent: it answered at the last check).
        var failures: [Dependency: String] = [:]
        var draining = false
        var started = false
    }

    private let state = Mutex(State())
    private let version: String

    public init(version: String) { self.version = version }

    // MARK: - Reports

    /// The last check of `dependency`: `nil` when it answered, else why it did not. Logs changes.
    public func report(_ dependency: Dependency, failure: String?) {
        let previous = state.withLock { s -> String?? in
            let old = s.failures[dependency]
            s.failures[dependency] = failure
            return old == failure ? .none : .some(old)
        }
        guard case .some(let old) = previous else { return }
        if let failure {
            Log.error("health", "\(dependency.rawValue) is not answering: \(failure); /healthz reports unhealthy")
        } else if old != nil {
            Log.info("health", "\(dependency.rawValue) answers again")
        }
    }

    /// The node serves (its HTTP and media ports are bound).
    public func markStarted() { state.withLock { $0.started = true } }

    /// The node drains (`SIGTERM` on a cluster node): not ready from now on.
    public func markDraining() { state.withLock { $0.draining = true } }

    // MARK: - Answers

    /// Why `dependency` failed its last check, or `nil` when it answered.
    public func failure(of dependency: Dependency) -> String? { state.withLock { $0.failures[dependency] } }

    /// Whether every dependency answered at its last check.
    public var isHealthy: Bool { state.withLock { $0.failures.isEmpty } }

    /// Whether a balancer should send new clients here.
    public var isReady: Bool { state.withLock { $0.failures.isEmpty && $0.started && !$0.draining } }

    /// `/healthz`: 200 `{"status":"ok",…}`, or 503 `{"status":"unhealthy","reasons":[…]}`.
    public func liveness() -> (status: Int, body: [UInt8]) {
        let s = state.withLock { $0 }
        return s.failures.isEmpty ? (200, body("ok", s)) : (503, body("unhealthy", s))
    }

    /// `/readyz`: 200 `{"status":"ready",…}`, or 503 with `starting`, `draining` or `unhealthy`.
    public func readiness() -> (status: Int, body: [UInt8]) {
        let s = state.withLock { $0 }
        if !s.failures.isEmpty { return (503, body("unhealthy", s)) }
        if s.draining { return (503, body("draining", s)) }
        if !s.started { return (503, body("starting", s)) }
        return (200, body("ready", s))
    }

    private struct Answer: Encodable {
        let status: String
        let version: String
        let draining: Bool
        let reasons: [String]?
    }

    private func body(_ status: String, _ s: State) -> [UInt8] {
        let reasons = s.failures.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue): \($0.value)" }
        let answer = Answer(status: status, version: version, draining: s.draining, reasons: reasons.isEmpty ? nil : reasons)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array((try? encoder.encode(answer)) ?? Data(#"{"status":"\#(status)"}"#.utf8))
    }
}
