import Foundation

/// Retries the start-up steps that need another service (the database, Redis) until it answers
/// or `--startup-timeout` passes, so nodes started together with their database, or while Redis
/// restarts, come up by themselves instead of exiting on the first refused connection. Only
/// errors that time can cure are retried (`isTransient`); a wrong password or a schema from a
/// newer server fails at once.
public struct StartupWait: Sendable {
    /// Delays between attempts, in seconds; the last repeats.
    static let delays: [Double] = [0.25, 0.5, 1, 2, 4]

    private let deadline: ContinuousClock.Instant
    private let timeout: Duration

    /// - Parameter timeout: how long every step together may wait (`--startup-timeout`).
    public init(timeout: Duration) {
        self.timeout = timeout
        deadline = .now + timeout
    }

    /// Runs `body` until it succeeds, retrying transient failures with backoff and saying what it
    /// waits for; rethrows the last error once the start-up timeout has passed.
    /// - Parameter what: the service waited for, as shown in the log ("PostgreSQL at db:5432").
    public func run<T>(waitingFor what: String, _ body: () throws -> T) throws -> T {
        var attempt = 0
        while true {
            do {
                let value = try body()
                if attempt > 0 { Log.info("startup", "\(what) answered after \(attempt + 1) attempts") }
                return value
            } catch {
                guard Self.isTransient(error) else { throw error }
                let delay = Self.delays[min(attempt, Self.delays.count - 1)]
                let left = deadline - .now
                guard left > .seconds(delay) else {
                    throw StartupError.timedOut(what: what, after: timeout, lastError: String(describing: error))
                }
                Log.warn("startup", "waiting for \(what): \(error); next try in \(delay) s, giving up in \(Int(left.components.seconds)) s")
                Thread.sleep(forTimeInterval: delay)
                attempt += 1
            }
        }
    }

    /// Whether waiting may cure `error`: no connection yet, the database still starting or
    /// shutting down (SQLSTATE class 08 "connection exception", 57P03 "cannot connect now"),
    /// Redis loading its data set or failing over, SQLite's file locked by another process.
    public static func isTransient(_ error: any Error) -> Bool {
        switch error {
        case let error as DatabaseError:
            switch error {
            case .connection: return true
            case .postgres(let state, _): return state.hasPrefix("08") || state.hasPrefix("57P")
            case .sqlite(let code, _): return code == 5 || code == 6  // SQLITE_BUSY, SQLITE_LOCKED
            case .schemaTooNew: return false
            }
        case let error as RedisError:
            switch error {
            case .connection: return true
            case .server(let message): return ["LOADING", "BUSY", "MASTERDOWN", "TRYAGAIN"].contains { message.hasPrefix($0) }
            case .invalidURL: return false
            }
        default:
            return false
        }
    }

    /// A service's URL as it may be logged: the password replaced, in the user part and in a
    /// libpq `password=` parameter (PostgreSQL manual §34.1.1.2).
    public static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url) else { return url }
        if components.password != nil { components.password = "***" }
        components.queryItems = components.queryItems?.map { $0.name == "password" ? URLQueryItem(name: "password", value: "***") : $0 }
        return components.string ?? url
    }
}

/// Why the server could not start.
public enum StartupError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A service did not answer within `--startup-timeout`.
    case timedOut(what: String, after: Duration, lastError: String)

    public var description: String {
        switch self {
        case .timedOut(let what, let after, let lastError):
            return "\(what) did not answer within the start-up timeout (\(after.components.seconds) s, --startup-timeout): \(lastError)"
        }
    }
}
