import SRTCCore

/// IM events of the engine (the documentation's `RTCEngineIMDelegate`): the connection, and every
/// entry of my mailbox (messages, notifications, meeting reminders, call events). Set it with
/// `enableIm(url:token:delegate:)` or `imDelegate`.
///
/// Every method has a default empty implementation. Events arrive on the engine's delegate queue.
public protocol IMDelegate: AnyObject {
    /// Logged in (after `enableIm`, and again after each reconnection).
    func imDidConnect(_ engine: SRTCEngine)
    /// The connection dropped; the SDK reconnects and resumes after the last entry it delivered.
    func imIsReconnecting(_ engine: SRTCEngine)
    /// IM stopped for good: `disableIm()` (`error` nil), or the server refused the token when
    /// reconnecting (`.server` 40106 / 40107 / 40108: enable IM again with a fresh token).
    func imDidDisconnect(_ engine: SRTCEngine, error: SRTCError?)
    /// An entry of my mailbox, in `seq` order, each once; the SDK acknowledges it once this returns.
    /// Switch on `message.kind`: `.message`, `.notification`, `.meetingReminder`, `.callInvite`,
    /// `.callAccepted`, `.callDeclined`, `.callCancelled`, `.callTimeout`.
    func im(_ engine: SRTCEngine, didReceive message: IMMessage)
}

extension IMDelegate {
    public func imDidConnect(_ engine: SRTCEngine) {}
    public func imIsReconnecting(_ engine: SRTCEngine) {}
    public func imDidDisconnect(_ engine: SRTCEngine, error: SRTCError?) {}
    public func im(_ engine: SRTCEngine, didReceive message: IMMessage) {}
}
