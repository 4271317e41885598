/// Comparison whose running time does not depend on where two inputs differ, so a MAC check
/// leaks nothing about how many leading bytes an attacker guessed right.
public enum ConstantTime {
    /// `true` when `a` and `b` have the same length and the same bytes. The length itself is not secret.
    public static func equals<A: Collection<UInt8>, B: Collection<UInt8>>(_ a: A, _ b: B) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) { difference |= x ^ y }
        return difference == 0
    }

    /// Constant-time equality of two strings' UTF-8 bytes (for hex signatures).
    public static func equals(_ a: String, _ b: String) -> Bool {
        equals(Array(a.utf8), Array(b.utf8))
    }
}
