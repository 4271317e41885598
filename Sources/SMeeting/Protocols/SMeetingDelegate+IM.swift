import SMeetingProtocol
import SRTC

/// The out-of-meeting events of `SMeetingDelegate` (IM, after `enableIm()`): calls and meeting
/// reminders when you are not in a meeting, separate from in-meeting chat. Every method has a
/// default empty implementation; events arrive on the delegate queue.
public protocol SMeetingIMEvents: AnyObject {
    /// IM is connected (after `enableIm()` and after each reconnection).
    func meetingImDidConnect(_ meeting: SMeetingEngine)
    /// IM stopped: `disableIm()` or `logout()` (`error` nil), or the token was refused when
    /// reconnecting (log in again and enable IM again).
    func meeting(_ meeting: SMeetingEngine, imDidDisconnect error: SRTCError?)
    /// Every IM entry, in order, each once (messages, notifications, reminders, call events).
    func meeting(_ meeting: SMeetingEngine, didReceiveImMessage message: IMMessage)
    /// Someone calls me (after `didReceiveImMessage`): answer with `meeting.srtc.acceptCall` /
    /// `declineCall`; the entry's `channel` or `content` says where to meet.
    func meeting(_ meeting: SMeetingEngine, didReceiveCallInvite invite: IMMessage)
    /// A scheduled meeting I host or am invited to starts soon (after `didReceiveImMessage`).
    func meeting(_ meeting: SMeetingEngine, didReceiveMeetingReminder reminder: MeetingReminder)
}

extension SMeetingIMEvents {
    public func meetingImDidConnect(_ meeting: SMeetingEngine) {}
    public func meeting(_ meeting: SMeetingEngine, imDidDisconnect error: SRTCError?) {}
    public func meeting(_ meeting: SMeetingEngine, didReceiveImMessage message: IMMessage) {}
    public func meeting(_ meeting: SMeetingEngine, didReceiveCallInvite invite: IMMessage) {}
    public func meeting(_ meeting: SMeetingEngine, didReceiveMeetingReminder reminder: MeetingReminder) {}
}
