import Foundation
import SMeetingProtocol
import SRTCProtocol
import SRTCServer
import Synchronization

/// Reminds a scheduled meeting's attendees (its host and `conferee`) a configurable time before
/// its `plan_time` (`--meeting-reminder-seconds`), as `meeting_reminder` notifications through the
/// server's notification hub, which the IM module delivers (docs/im.md, "Meeting reminders").
///
/// The meeting backend decides when (it owns the schedule); IM delivers and keeps a reminder
/// for an attendee who is offline. Each scan looks for appointments starting within the lead
/// time; the dedupe key (meeting id and plan time) makes a repeated scan, or a restart, send
/// nothing twice, while a moved meeting is reminded of again.
final class MeetingReminders: Sendable {
    let store: MeetingStore
    let notifications: UserNotifications
    let leadSeconds: Int64
    let scanIntervalMs: Int64
    /// The rooms' clock: the next scan is one of its timers.
    let clock: RoomClock
    private let next = Mutex<(timer: RoomTimer?, stopped: Bool)>((nil, false))

    init(store: MeetingStore, notifications: UserNotifications, settings: IMSettings, clock: RoomClock = SystemRoomClock()) {
        self.store = store
        self.notifications = notifications
        self.clock = clock
        leadSeconds = Int64(settings.meetingReminderSeconds)
        scanIntervalMs = Int64(max(1, settings.meetingReminderScanSeconds)) * 1000
    }

    /// Scans now, then every scan interval until `stop` (nothing when reminders are off).
    func start() {
        guard leadSeconds > 0 else { return }
        Task { await scanAndWait() }
    }

    /// Stops the scans (a scan under way finishes).
    func stop() {
        let timer = next.withLock { s -> RoomTimer? in
            s.stopped = true
            defer { s.timer = nil }
            return s.timer
        }
        timer?.cancel()
    }

    private func scanAndWait() async {
        await scan(now: clock.now() / 1000)
        let deadline = clock.now() + scanIntervalMs
        next.withLock { s in
            guard !s.stopped else { return }
            s.timer = clock.schedule(at: deadline) { [self] in Task { await scanAndWait() } }
        }
    }

    /// Sends the reminders due at `now` (Unix seconds); returns how many meetings were reminded.
    @discardableResult
    func scan(now: Int64) async -> Int {
        guard notifications.canDeliver, let due = try? store.appointments(startingAfter: now, upTo: now + leadSeconds) else { return 0 }
        var reminded = 0
        for (appId, meeting) in due {
            guard let planTime = meeting.planTime else { continue }
            let minutes = max(1, (planTime - now + 59) / 60)
            let data = MeetingReminder(meetingId: meeting.meetingId, roomNo: meeting.roomNo, title: meeting.title, hostUid: meeting.hostUid,
                            planTime: planTime, planDur: meeting.planDur)
            let notification = UserNotification(kind: IMMessageKind.meetingReminder.rawValue, title: meeting.title,
                                                 content: "\"\(meeting.title)\" starts in \(minutes) min (room \(meeting.roomNo))",
                                                 data: JSONEnvelope.encode(data), dedupeKey: "meeting_reminder:\(meeting.meetingId):\(planTime)")
            let attendees = Array(Set([meeting.hostUid] + meeting.conferee)).sorted()
            if let count = try? await notifications.post(notification, appId: appId, uids: attendees), count > 0 { reminded += 1 }
        }
        return reminded
    }
}
