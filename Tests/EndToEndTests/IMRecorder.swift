import Foundation
import SRTC
import TestWait
import Synchronization

/// An `IMDelegate` that keeps what it heard, in order.
final class IMRecorder: IMDelegate, @unchecked Sendable {
    private let state = Mutex<(messages: [IMMessage], lines: [String])>(([], []))

    var messages: [IMMessage] { state.withLock { $0.messages } }
    var lines: [String] { state.withLock { $0.lines } }

    func imDidConnect(_ engine: SRTCEngine) { state.withLock { $0.lines.append("connected") } }
    func imIsReconnecting(_ engine: SRTCEngine) { state.withLock { $0.lines.append("reconnecting") } }
    func imDidDisconnect(_ engine: SRTCEngine, error: SRTCError?) {
        state.withLock { $0.lines.append("disconnected \(error.map { String($0.code) } ?? "-")") }
    }
    func im(_ engine: SRTCEngine, didReceive message: IMMessage) {
        state.withLock { $0.messages.append(message); $0.lines.append("\(message.kind.rawValue) \(message.seq)") }
    }

    /// Waits until `count` entries arrived; returns them.
    @discardableResult
    func messages(count: Int, timeout: Double = 60) async throws -> [IMMessage] {
        try await eventually(timeout: timeout, "\(count) IM entries (have \(messages.count))") { messages.count >= count }
        return messages
    }

    func wait(for line: String, timeout: Double = 60) async throws {
        try await eventually(timeout: timeout, "'\(line)' in \(lines)") { lines.contains(line) }
    }
}
