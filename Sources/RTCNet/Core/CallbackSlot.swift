import Synchronization

/// A callback that any thread may set, replace, clear or read.
///
/// Use this, not `Mutex<(@Sendable () -> Void)?>`. A function type passed as a generic argument
/// is stored at the most general abstraction, so every `withLock` that touches it through the
/// body's `inout` parameter re-abstracts the function on the way in and again on the way out, and
/// the write-back stores the doubly wrapped closure. Each access adds thunks for good: an idle
/// server's 20 ms media tick called through 17,000 frames after 93 s (issue #8), and each join
/// through a growing chain of async thunks. Inside a struct the function keeps its declared
/// abstraction and is never rewritten, so reading it costs the same on the millionth call.
///
/// ```swift
/// let onTick = CallbackSlot<@Sendable () -> Void>()
/// onTick.set { print("tick") }
/// onTick.function?()
/// ```
public final class CallbackSlot<Function: Sendable>: Sendable {
    private struct Entry: Sendable { let function: Function }
    private let entry: Mutex<Entry?>

    /// - Parameter function: the initial callback, or nil.
    public init(_ function: Function? = nil) {
        entry = Mutex(function.map(Entry.init))
    }

    /// The callback, or nil when none is set.
    public var function: Function? { entry.withLock { $0?.function } }

    /// Replaces the callback (nil clears it).
    public func set(_ function: Function?) {
        let new = function.map(Entry.init)
        entry.withLock { $0 = new }
    }
}
