import Foundation
import Synchronization

/// The server's logger: one line per event on standard error, `time level [area] message`.
/// Messages are written by our code only; secrets (app keys, tokens) are never passed to it.
public enum Log {
    public enum Level: Int, Sendable, Comparable {
        case debug, info, warn, error
        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
        public init?(name: String) {
            switch name {
            case "debug": self = .debug
            case "info": self = .info
            case "warn": self = .warn
            case "error": self = .error
            default: return nil
            }
        }
    }

    private static let minimum = Atomic<Int>(Level.info.rawValue)
    private static let lock = Mutex(())

    /// Sets the lowest level written.
    public static func setLevel(_ level: Level) { minimum.store(level.rawValue, ordering: .relaxed) }

    public static func debug(_ area: String, _ message: @autoclosure () -> String) { write(.debug, area, message) }
    public static func info(_ area: String, _ message: @autoclosure () -> String) { write(.info, area, message) }
    public static func warn(_ area: String, _ message: @autoclosure () -> String) { write(.warn, area, message) }
    public static func error(_ area: String, _ message: @autoclosure () -> String) { write(.error, area, message) }

    private static func write(_ level: Level, _ area: String, _ message: () -> String) {
        guard level.rawValue >= minimum.load(ordering: .relaxed) else { return }
        let stamp = ISO8601DateFormatter.string(from: Date(), timeZone: .gmt, formatOptions: [.withInternetDateTime, .withFractionalSeconds])
        let line = "\(stamp) \(String(describing: level).uppercased()) [\(area)] \(message())\n"
        lock.withLock { _ in FileHandle.standardError.write(Data(line.utf8)) }
    }
}
