import Foundation
import Synchronization

/// How much the SDK writes to standard error.
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

/// The engine's logger: one level for the whole engine, lines to standard error.
final class Logger: Sendable {
    private let level: Mutex<LogLevel>

    init(level: LogLevel) {
        self.level = Mutex(level)
    }

    var currentLevel: LogLevel {
        get { level.withLock { $0 } }
        set { level.withLock { $0 = newValue } }
    }

    /// Writes `message()` when `at` is at or above the current level (the text is built only then).
    func log(_ at: LogLevel, _ message: @autoclosure () -> String) {
        let current = currentLevel
        guard at != .off, at >= current else { return }
        FileHandle.standardError.write(Data("[srtc \(at.label)] \(message())\n".utf8))
    }

    func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
    func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    func error(_ message: @autoclosure () -> String) { log(.error, message()) }
}
