import CSRTP

/// One direction of SRTP/SRTCP protection over libsrtp2: an outbound session protects, an inbound
/// one unprotects. Packets are transformed in place in the caller's buffer; nothing is allocated
/// per packet. Streams are matched by wildcard policy (`ssrc_any_outbound` / `ssrc_any_inbound`),
/// so new SSRCs need no setup. Replay protection is on (window of `replayWindow` packets).
///
/// Not thread-safe: a session belongs to one I/O thread.
public final class SRTPSession {
    /// Which way packets go through this session.
    public enum Direction: Sendable { case inbound, outbound }

    public let profile: SRTPProfile
    public let direction: Direction
    private var session: srtp_t?

    /// Replay window in packets: large enough for video bursts reordered on the way.
    public static let replayWindow = 1024

    /// - Parameters:
    ///   - masterKeyAndSalt: `profile.masterLength` bytes, the key followed by the salt.
    public init(profile: SRTPProfile, masterKeyAndSalt: [UInt8], direction: Direction) throws(SRTPError) {
        guard SRTPLibrary.isReady else { throw .libraryInitFailed }
        guard masterKeyAndSalt.count == profile.masterLength else {
            throw .badKeyLength(expected: profile.masterLength, got: masterKeyAndSalt.count)
        }
        self.profile = profile
        self.direction = direction
        var policy = srtp_policy_t()
        profile.apply(to: &policy)
        policy.ssrc.type = direction == .inbound ? ssrc_any_inbound : ssrc_any_outbound
        policy.ssrc.value = 0
        policy.window_size = UInt(Self.replayWindow)
        // Outbound: a NACKed packet is re-sent with the same index; libsrtp must not refuse it.
        policy.allow_repeat_tx = direction == .outbound ? 1 : 0
        policy.next = nil
        var key = masterKeyAndSalt + [UInt8](repeating: 0, count: 32) // libsrtp reads up to its max key length
        var created: srtp_t?
        let status = key.withUnsafeMutableBufferPointer { buffer -> srtp_err_status_t in
            policy.key = buffer.baseAddress
            return srtp_create(&created, &policy)
        }
        for i in key.indices { key[i] = 0 }
        guard status == srtp_err_status_ok, let created else { throw .sessionCreateFailed(status: Int32(status.rawValue)) }
        session = created
    }

    deinit {
        if let session { srtp_dealloc(session) }
    }

    // MARK: - Per-packet operations (in place)

    /// Encrypts and authenticates the RTP packet in `buffer[0..<length]`, appending the tag.
    /// `buffer` must have `profile.rtpOverhead` spare bytes after the packet.
    /// - Returns: the SRTP packet's length.
    @inline(__always)
    public func protectRTP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        try transform(buffer, length: length, minimum: 12, room: profile.rtpOverhead, srtp_protect)
    }

    /// Verifies and decrypts the SRTP packet in `buffer[0..<length]` in place.
    /// - Returns: the RTP packet's length.
    @inline(__always)
    public func unprotectRTP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        try transform(buffer, length: length, minimum: 12 + profile.rtpOverhead, room: 0, srtp_unprotect)
    }

    /// Encrypts and authenticates the RTCP compound packet in `buffer[0..<length]`, appending the
    /// SRTCP index and tag (`profile.rtcpOverhead` spare bytes needed).
    @inline(__always)
    public func protectRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        try transform(buffer, length: length, minimum: 8, room: profile.rtcpOverhead, srtp_protect_rtcp)
    }

    /// Verifies and decrypts the SRTCP packet in `buffer[0..<length]` in place.
    @inline(__always)
    public func unprotectRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        try transform(buffer, length: length, minimum: 8 + profile.rtcpOverhead, room: 0, srtp_unprotect_rtcp)
    }

    @inline(__always)
    private func transform(
        _ buffer: UnsafeMutableRawBufferPointer, length: Int, minimum: Int, room: Int,
        _ operation: (srtp_t?, UnsafeMutableRawPointer?, UnsafeMutablePointer<Int32>?) -> srtp_err_status_t
    ) throws(SRTPError) -> Int {
        guard length >= minimum, length <= buffer.count, length <= Int(Int32.max) - 64 else { throw .badPacketLength }
        guard buffer.count - length >= room else { throw .bufferTooSmall }
        var size = Int32(length)
        let status = operation(session, buffer.baseAddress, &size)
        guard status == srtp_err_status_ok else { throw Self.error(status) }
        return Int(size)
    }

    static func error(_ status: srtp_err_status_t) -> SRTPError {
        switch status {
        case srtp_err_status_auth_fail: return .authenticationFailed
        case srtp_err_status_replay_fail, srtp_err_status_replay_old: return .replayed
        default: return .failed(status: Int32(status.rawValue))
        }
    }
}
