/// Why an SRTP or SRTCP operation failed.
public enum SRTPError: Error, Sendable, Equatable {
    /// `srtp_init` failed; libsrtp cannot be used in this process.
    case libraryInitFailed
    /// The master key and salt do not have the profile's length.
    case badKeyLength(expected: Int, got: Int)
    /// `srtp_create` refused the policy; the code is libsrtp's `srtp_err_status_t`.
    case sessionCreateFailed(status: Int32)
    /// The packet is shorter than an RTP/RTCP header plus the tag, or longer than the buffer allows.
    case badPacketLength
    /// The buffer has no room for the tag protection appends.
    case bufferTooSmall
    /// The authentication tag did not verify (forged or corrupt packet, or wrong key).
    case authenticationFailed
    /// The packet index was seen before or is older than the replay window (RFC 3711 §3.3.2).
    case replayed
    /// Any other libsrtp failure; the code is its `srtp_err_status_t`.
    case failed(status: Int32)
}
