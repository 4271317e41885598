/// When a client transport that was receiving stops (`PeerTransport`, I/O thread): after
/// `threshold` without a packet it asks for one consent check at once, instead of waiting up to
/// 6 s for the next (RFC 7675 §5.1). A NAT that rebound the client's port silences the server's
/// media while the client sees nothing else; that check reaches the server from the new mapping
/// and, nominating, moves the server's media there (docs/network.md, "A NAT that rebinds the
/// client's port"). One check per silence: a sender that merely stopped costs one STUN request.
///
/// A receiving transport gets packets every 20 ms (audio) or, publishing, the server's
/// transport-cc feedback every 100 ms or so: half a second of nothing is not jitter.
struct SilenceWatch: Sendable {
    static let threshold: Duration = .milliseconds(500)

    private var received = 0
    private var lastGrowth: ContinuousClock.Instant?
    private var checked = false

    /// Folds in the transport's packet count; true once per silence, when it has lasted `threshold`.
    mutating func isSilent(received count: Int, now: ContinuousClock.Instant) -> Bool {
        if count != received {
            received = count
            lastGrowth = now
            checked = false
            return false
        }
        guard !checked, let last = lastGrowth, now - last >= Self.threshold else { return false }
        checked = true
        return true
    }
}
