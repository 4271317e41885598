/// Hands a non-Sendable object (a stream, a camera, a window) to the one thread that owns it
/// from then on.
struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }
}
