/// Hands a non-Sendable object (a stream, a camera, a window) to the one thread that owns it
/// from then on.
// @unchecked Sendable: each use hands a non-Sendable value (a device, a stream, a window) to one thread's body, and the creator does not touch it after the handoff.
package struct UncheckedBox<Value>: @unchecked Sendable {
    package let value: Value

    package init(_ value: Value) {
        self.value = value
    }
}
