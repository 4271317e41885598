/// Arithmetic on numbers that come from outside (headers, tokens, packets, request bodies): the
/// result sticks at the type's bound instead of trapping. A value an attacker chose must never be
/// able to stop the process (issue #8: `timestamp: -9223372036854775808` and `exp` near
/// `Int64.max` each crashed the server); a saturated value is then refused by the range check
/// that follows.
extension FixedWidthInteger {
    /// `self + other`, clamped to `min...max`.
    @inlinable public func addingSaturating(_ other: Self) -> Self {
        let (sum, overflow) = addingReportingOverflow(other)
        guard overflow else { return sum }
        return other > 0 ? .max : .min
    }

    /// `self - other`, clamped to `min...max`.
    @inlinable public func subtractingSaturating(_ other: Self) -> Self {
        let (difference, overflow) = subtractingReportingOverflow(other)
        guard overflow else { return difference }
        return other > 0 ? .min : .max
    }

    /// `self * other`, clamped to `min...max`.
    @inlinable public func multipliedSaturating(by other: Self) -> Self {
        let (product, overflow) = multipliedReportingOverflow(by: other)
        guard overflow else { return product }
        return (self < 0) == (other < 0) ? .max : .min
    }
}
