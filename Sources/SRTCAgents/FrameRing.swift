import Synchronization

/// A fixed ring of 20 ms frames of 16 kHz mono PCM between one producer (the track's media
/// thread) and one consumer (the participant's worker). Storage is made once; `push` and `pop`
/// copy under a lock and never allocate. When the consumer falls more than `capacity` frames
/// behind, the oldest frames are dropped (and counted).
// @unchecked Sendable: `storage` is fixed at init and read or written only while `state`'s lock is held.
final class FrameRing: @unchecked Sendable {
    static let frameSamples = 320  // 20 ms at 16 kHz

    private let storage: UnsafeMutablePointer<Int16>
    private let capacity: Int
    private let state = Mutex((head: 0, count: 0, dropped: 0))

    init(capacityFrames: Int) {
        capacity = capacityFrames
        storage = .allocate(capacity: capacityFrames * Self.frameSamples)
        storage.initialize(repeating: 0, count: capacityFrames * Self.frameSamples)
    }

    deinit {
        storage.deallocate()
    }

    /// Frames dropped because the consumer was too slow.
    var dropped: Int { state.withLock { $0.dropped } }

    /// Appends one frame of exactly `frameSamples` samples.
    func push(_ frame: UnsafePointer<Int16>) {
        state.withLock { s in
            if s.count == capacity {
                s.head = (s.head + 1) % capacity
                s.count -= 1
                s.dropped += 1
            }
            let slot = (s.head + s.count) % capacity
            (storage + slot * Self.frameSamples).update(from: frame, count: Self.frameSamples)
            s.count += 1
        }
    }

    /// Copies the oldest frame into `into`; false when empty.
    func pop(into: UnsafeMutablePointer<Int16>) -> Bool {
        state.withLock { s in
            guard s.count > 0 else { return false }
            into.update(from: storage + s.head * Self.frameSamples, count: Self.frameSamples)
            s.head = (s.head + 1) % capacity
            s.count -= 1
            return true
        }
    }
}
