import Foundation
import Synchronization

/// The process's one engine (seed 000: `RTCEngineKit` is a singleton): the camera, the speaker,
/// the audio session and IM belong to the process, so a second engine would fight the first for
/// them. An engine holds the slot from its creation until its `destroy()` returns; engines made
/// with `SRTCEngine(independent:)` (this package's tests and workers) never take it.
enum ProcessEngine {
    /// Held while the process's engine is made, so that "is there one?" and the creation that
    /// follows are one step (two threads never both make one).
    private static let creation = NSLock()
    private static let slot = Mutex<SRTCEngine?>(nil)

    /// Takes the creation lock; `endCreation()` gives it back.
    static func beginCreation() { creation.lock() }

    static func endCreation() { creation.unlock() }

    /// - Throws: `.conflict` while an engine lives. Call between `beginCreation()` and `endCreation()`.
    static func checkVacant() throws(SRTCError) {
        guard live == nil else {
            throw .conflict("an engine already lives in this process: use SRTCEngine.sharedEngine(), or destroy() it first")
        }
    }

    /// Makes `engine` the process's engine. Call between `beginCreation()` and `endCreation()`.
    static func fill(_ engine: SRTCEngine) {
        slot.withLock { $0 = engine }
    }

    /// Gives the slot back if `engine` holds it (its `destroy()` returned).
    static func release(_ engine: SRTCEngine) {
        slot.withLock { if $0 === engine { $0 = nil } }
    }

    /// The live engine, if any.
    static var live: SRTCEngine? { slot.withLock { $0 } }
}
