import Synchronization

/// Per-engine state of a role module (IM, the speed test, render): those modules extend
/// `SRTCEngine` from outside, where an extension cannot add stored properties, and the engine does
/// not know them. It holds each module's state here, one object per type, and tells each when it
/// is destroyed.
package protocol EngineAttachment: AnyObject, Sendable {
    /// Made on first use, by `EngineAttachments.attachment(_:)`.
    init()
    /// The engine is being destroyed (once, before its channels leave): stop and report nothing more.
    func engineWillDestroy()
    /// The engine's channels have left (once, at the end of `destroy()`): release what they used
    /// until then (the virtual background's segmenter, which kept masking the camera while the
    /// channels were leaving).
    func engineDidDestroy()
}

extension EngineAttachment {
    package func engineDidDestroy() {}
}

/// The role modules' per-engine objects, by type.
package final class EngineAttachments: Sendable {
    private let objects = Mutex<[ObjectIdentifier: any EngineAttachment]>([:])

    package init() {}

    /// The engine's `A`, made the first time it is asked for.
    package func attachment<A: EngineAttachment>(_ type: A.Type = A.self) -> A {
        objects.withLock { all -> A in
            if let existing = all[ObjectIdentifier(type)] as? A { return existing }
            let made = A()
            all[ObjectIdentifier(type)] = made
            return made
        }
    }

    /// Tells every attachment that the engine is being destroyed.
    func engineWillDestroy() {
        let all = objects.withLock { Array($0.values) }
        for attachment in all { attachment.engineWillDestroy() }
    }

    /// Tells every attachment that the engine's channels have left.
    func engineDidDestroy() {
        let all = objects.withLock { Array($0.values) }
        for attachment in all { attachment.engineDidDestroy() }
    }
}
