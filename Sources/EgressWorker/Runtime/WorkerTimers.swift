import RTCNet

/// The worker's control timers (idle checks) on the mechanism the server and the SDKs use,
/// `TimerQueue` (docs/architecture.md, "Timers"). The media clocks are another job and keep
/// threads of their own: a composite's frame and audio clocks (`CompositeTask.startClock`) and an
/// ingress's pacing and listener back-off (`IngressPacer`, `IngressTask.run`), which block a
/// thread that does nothing else.
enum WorkerTimers {
    /// Calls `tick` once a second until it returns false or the returned task is cancelled.
    static func everySecond(_ tick: @escaping @Sendable () -> Bool) -> Task<Void, Never> {
        Task {
            while true {
                do { try await TimerQueue.shared.sleep(for: .seconds(1)) } catch { return }
                guard tick() else { return }
            }
        }
    }

    /// Calls `action` once after `delay`, on `TimerQueue.shared`'s queue (hop to your own).
    static func after(_ delay: Duration, _ action: @escaping @Sendable () -> Void) -> TimerQueue.Handle {
        TimerQueue.shared.schedule(after: delay, action)
    }

    static func cancel(_ handle: TimerQueue.Handle) {
        TimerQueue.shared.cancel(handle)
    }
}
