import Foundation
import SMeetingProtocol
import SRTC

/// Out-of-meeting messages (seed: `enableIm()`): a notification path independent of the meeting,
/// on top of SRTC's IM (`meeting.srtc`), logged in with the member token of `login(token:)`.
extension SMeetingEngine {
    /// Starts IM for the logged-in member: calls, meeting reminders and messages arrive through
    /// `delegates` (`SMeetingIMEvents`) whether or not you are in a meeting. Stored entries (a
    /// reminder sent while you were away) arrive first. Calling it again while on does nothing.
    /// - Throws: `.notLoggedIn`; `.internalError` when the IM service cannot be reached.
    public func enableIm() async throws {
        guard let token = state.withLock({ $0.session.token }), isLoggedIn else { throw SMeetingError.notLoggedIn }
        guard state.withLock({ $0.imBridge == nil }) else { return }
        let bridge = IMBridge(meeting: self)
        state.withLock { $0.imBridge = bridge }
        do {
            try await srtc.enableIm(url: url, token: token, delegate: bridge)
        } catch {
            state.withLock { if $0.imBridge === bridge { $0.imBridge = nil } }
            if let srtcError = error as? SRTCError, case .server(let code, let message) = srtcError {
                throw SMeetingError.apiError(code: code, message: message)
            }
            throw SMeetingError.internalError("IM: \(error)")
        }
    }

    /// Stops IM (also done by `logout()`).
    public func disableIm() {
        guard let bridge = state.withLock({ s -> IMBridge? in defer { s.imBridge = nil }; return s.imBridge }) else { return }
        srtc.disableIm()
        // The bridge (held weakly by SRTC) lives until the last IM event queued for it has run.
        srtc.configuration.delegateQueue.async { withExtendedLifetime(bridge) {} }
    }

    /// Whether `enableIm()` is on.
    public var isImEnabled: Bool { state.withLock { $0.imBridge != nil } }
}

/// Turns SRTC's IM events into meeting events.
// @unchecked Sendable: its one stored property, a weak reference to the (Sendable) engine, is set in init and never reassigned.
final class IMBridge: IMDelegate, @unchecked Sendable {
    private weak var meeting: SMeetingEngine?

    init(meeting: SMeetingEngine) { self.meeting = meeting }

    func imDidConnect(_ engine: SRTCEngine) {
        guard let meeting else { return }
        meeting.delegates.notify { $0.meetingImDidConnect(meeting) }
    }

    func imDidDisconnect(_ engine: SRTCEngine, error: SRTCError?) {
        guard let meeting else { return }
        meeting.delegates.notify { $0.meeting(meeting, imDidDisconnect: error) }
    }

    func im(_ engine: SRTCEngine, didReceive message: IMMessage) {
        guard let meeting else { return }
        let reminder = message.kind == .meetingReminder
            ? message.data.flatMap { try? MeetingCodec.decode(MeetingReminder.self, from: Data($0.utf8)) } : nil
        meeting.delegates.notify { d in
            d.meeting(meeting, didReceiveImMessage: message)
            if message.kind == .callInvite { d.meeting(meeting, didReceiveCallInvite: message) }
            if let reminder { d.meeting(meeting, didReceiveMeetingReminder: reminder) }
        }
    }
}
