import Foundation
import Synchronization

/// How much the SDK logs (to standard error, or to the engine's `logSink`).
public enum LogLevel: Int, Sendable, Comparable, CaseIterable {
    /// Everything, including per-negotiation details.
    case debug
    /// Connection milestones (joined, reconnected, published).
    case info
    /// Recoverable problems (a reconnect attempt failed, a frame could not be encoded).
    case warning
    /// Failures that end something (a join, a channel, a transport).
    case error
    /// Nothing.
    case off

    public static func < (a: LogLevel, b: LogLevel) -> Bool { a.rawValue < b.rawValue }

    var label: String {
        switch self {
        case .debug: "debug"
        case .info: "info"
        case .warning: "warning"
        case .error: "error"
        case .off: "off"
        }
    }
}

/// Where the engine's log lines go instead of standard error: each line's level and text (no
/// prefix, no newline), called on the thread that logged, so it must be quick and thread-safe.
public typealias LogSink = @Sendable (LogLevel, String) -> Void

/// The engine's logger: one level for the whole engine; lines go to the app's sink when it set
/// one, else to standard error.
package final class Logger: Sendable {
    private struct State: Sendable {
        var level: LogLevel
        var sink: LogSink?
    }

    private let state: Mutex<State>

    package init(level: LogLevel, sink: LogSink? = nil) {
        state = Mutex(State(level: level, sink: sink))
    }

    var currentLevel: LogLevel {
        get { state.withLock { $0.level } }
        set { state.withLock { $0.level = newValue } }
    }

    /// nil writes to standard error.
    var sink: LogSink? {
        get { state.withLock { $0.sink } }
        set { state.withLock { $0.sink = newValue } }
    }

    /// Writes `message()` when `at` is at or above the current level (the text is built only then).
    package func log(_ at: LogLevel, _ message: @autoclosure () -> String) {
        let (current, sink) = state.withLock { ($0.level, $0.sink) }
        guard at != .off, at >= current else { return }
        let text = message()
        if let sink {
            sink(at, text)
        } else {
            FileHandle.standardError.write(Data("[srtc \(at.label)] \(text)\n".utf8))
        }
    }

    package func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
    package func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    package func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    package func error(_ message: @autoclosure () -> String) { log(.error, message()) }
}
