// The key-frame request state the video encoders (VP8, H.264) share: a receiver's PLI or FIR
// arrives on a transport's I/O thread while frames are encoded on another, so the flag is atomic
// and taken (read and cleared) once per encoded frame.

import Synchronization

/// A pending "make the next frame a key frame".
struct KeyFrameRequest: ~Copyable, Sendable {
    private let pending = Atomic<Bool>(false)

    /// Asks for the next encoded frame to be a key frame.
    func request() { pending.store(true, ordering: .releasing) }

    /// Whether the frame about to be encoded must be a key frame (`forced` by the caller, or
    /// asked for since the last frame); clears the request.
    func take(forced: Bool) -> Bool {
        pending.exchange(false, ordering: .acquiringAndReleasing) || forced
    }
}
