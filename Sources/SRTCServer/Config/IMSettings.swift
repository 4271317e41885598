/// Limits of the IM service (docs/im.md, "Limits"), read by the `IMServer` module.
public struct IMSettings: Sendable, Equatable {
    /// Largest `content` of a message or call request, in bytes (`--im-max-content-bytes`).
    public var maxContentBytes = 4096
    /// Entries kept per uid (`--im-mailbox-size`): past it the oldest acknowledged ones go; when
    /// all are unacknowledged, new ones to that uid are refused with `limit_reached`.
    public var mailboxSize = 1000
    /// How long an entry is kept, in seconds (`--im-retention-seconds`, 7 days).
    public var retentionSeconds = 7 * 86400
    /// Requests one IM session may make per second (a token bucket with this burst).
    public var requestsPerSecond = 50
    /// Seconds before a scheduled meeting's start that its attendees are reminded
    /// (`--meeting-reminder-seconds`, 10 minutes; 0: no reminders).
    public var meetingReminderSeconds = 600
    /// How often the meeting backend looks for meetings to remind of, in seconds.
    public var meetingReminderScanSeconds = 15

    public init() {}
}
