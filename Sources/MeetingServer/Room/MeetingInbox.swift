/// The one serial path into a `MeetingRoom` for what does not come from a member's request: its
/// timers (sign-in and roll-call deadlines, the sub-meetings' countdown, the wait for a moved
/// room's members). Each job runs on the room's actor to completion, in the order posted, so a
/// test that advances a `ManualClock` and then awaits `MeetingRoom.settled()` sees every timer
/// that fell due applied. As `ChannelRoom`'s `RoomInbox`, it holds no reference to its room.
final class MeetingInbox: Sendable {
    typealias Job = @Sendable (isolated MeetingRoom) -> Void

    /// Read once, by the room's drain task.
    let jobs: AsyncStream<Job>
    private let continuation: AsyncStream<Job>.Continuation

    init() {
        (jobs, continuation) = AsyncStream.makeStream(of: Job.self)
    }

    /// Queues a job; `false` when the room closed (the job never runs).
    @discardableResult
    func post(_ job: @escaping Job) -> Bool {
        if case .enqueued = continuation.yield(job) { return true }
        return false
    }

    /// Refuses later posts; what is queued still runs.
    func finish() {
        continuation.finish()
    }
}
