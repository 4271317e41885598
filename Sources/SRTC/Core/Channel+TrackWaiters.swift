import RTCNet

/// Waiting for a remote track that is announced but not there yet (SMeeting's meeting state can
/// arrive before the channel's `track_published`): the waiter is resumed when the track is added, or
/// by a `TimerQueue` timer when the time is up, never by polling.
extension Channel {
    struct TrackWaiter {
        let uid: String
        let desc: String
        let continuation: CheckedContinuation<RemoteTrack?, Never>
        var timer: TimerQueue.Handle?
    }

    /// The remote track `uid` publishes as `desc`, waiting up to `timeout` for it to be added;
    /// nil when it did not come in time.
    package func remoteTrack(uid: String, desc: String, waitingUpTo timeout: Duration) async -> RemoteTrack? {
        let id = state.sync { s -> Int in
            s.nextTrackWaiter += 1
            return s.nextTrackWaiter
        }
        return await withCheckedContinuation { (continuation: CheckedContinuation<RemoteTrack?, Never>) in
            let found = state.sync { s -> RemoteTrack?? in
                if let track = s.remoteTracks.values.first(where: { $0.uid == uid && $0.desc == desc }) { return .some(track) }
                guard timeout > .zero else { return .some(nil) }
                s.trackWaiters[id] = TrackWaiter(uid: uid, desc: desc, continuation: continuation)
                return nil
            }
            if let found {
                continuation.resume(returning: found)
                return
            }
            // The timer fires on the channel's queue, which owns the waiters.
            let timer = TimerQueue.shared.schedule(after: timeout) { [weak self] in
                guard let self else { return }
                queue.async { self.resumeTrackWaiter(id, with: nil) }
            }
            // The timer is kept only while the waiter is; a waiter already resumed cancels it here.
            let kept = state.sync { s -> Bool in
                guard s.trackWaiters[id] != nil else { return false }
                s.trackWaiters[id]?.timer = timer
                return true
            }
            if !kept { TimerQueue.shared.cancel(timer) }
        }
    }

    /// Resumes every waiter for `track` (called when it is added).
    func resumeTrackWaiters(for track: RemoteTrack) {
        let ids = state.sync { s in s.trackWaiters.filter { $0.value.uid == track.uid && $0.value.desc == track.desc }.map(\.key) }
        for id in ids { resumeTrackWaiter(id, with: track) }
    }

    private func resumeTrackWaiter(_ id: Int, with track: RemoteTrack?) {
        guard let waiter = state.sync({ $0.trackWaiters.removeValue(forKey: id) }) else { return }
        if let timer = waiter.timer { TimerQueue.shared.cancel(timer) }
        waiter.continuation.resume(returning: track)
    }
}
