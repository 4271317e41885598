/// Why DTLS setup or a handshake failed.
public enum DTLSError: Error, Sendable, Equatable {
    /// Generating the key pair or the self-signed certificate failed; the text says which step.
    case certificateGenerationFailed(String)
    /// OpenSSL refused the context or connection setup; the text carries its reason.
    case setupFailed(String)
    /// The peer's certificate does not hash to the fingerprint from the signaling (RFC 8122 §5).
    case fingerprintMismatch
    /// The fingerprint text is not `algorithm XX:XX:...` with a known hash.
    case badFingerprint(String)
    /// The handshake failed; the text carries OpenSSL's reason.
    case handshakeFailed(String)
    /// The handshake finished without a `use_srtp` profile both sides support (RFC 5764 §4.1.1).
    case noSRTPProfile
    /// The handshake timed out after OpenSSL's retransmissions were exhausted.
    case timeout
}
