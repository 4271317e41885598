/// The two SRTP sessions of one DTLS-SRTP association: outbound with our write key, inbound with
/// the peer's. Built from the keying material DTLS exports (RFC 5764 §4.2).
///
/// Not thread-safe: it belongs to the I/O thread of its transport.
public final class SRTPContext {
    public let profile: SRTPProfile
    /// Protects what we send.
    public let outbound: SRTPSession
    /// Unprotects what we receive.
    public let inbound: SRTPSession

    /// From explicit master keys (tests, benchmarks): `local` protects, `remote` unprotects.
    public init(profile: SRTPProfile, localMasterKeyAndSalt: [UInt8], remoteMasterKeyAndSalt: [UInt8]) throws(SRTPError) {
        self.profile = profile
        outbound = try SRTPSession(profile: profile, masterKeyAndSalt: localMasterKeyAndSalt, direction: .outbound)
        inbound = try SRTPSession(profile: profile, masterKeyAndSalt: remoteMasterKeyAndSalt, direction: .inbound)
    }

    /// From exported keying material laid out as client key, server key, client salt, server salt
    /// (RFC 5764 §4.2). The DTLS client writes with the client key.
    public convenience init(profile: SRTPProfile, keyingMaterial: [UInt8], isDTLSClient: Bool) throws(SRTPError) {
        let k = profile.keyLength, s = profile.saltLength
        guard keyingMaterial.count == 2 * (k + s) else {
            throw .badKeyLength(expected: 2 * (k + s), got: keyingMaterial.count)
        }
        let clientKey = Array(keyingMaterial[0..<k])
        let serverKey = Array(keyingMaterial[k..<(2 * k)])
        let clientSalt = Array(keyingMaterial[(2 * k)..<(2 * k + s)])
        let serverSalt = Array(keyingMaterial[(2 * k + s)..<(2 * k + 2 * s)])
        let client = clientKey + clientSalt
        let server = serverKey + serverSalt
        try self.init(profile: profile,
                      localMasterKeyAndSalt: isDTLSClient ? client : server,
                      remoteMasterKeyAndSalt: isDTLSClient ? server : client)
    }

    /// Protects an RTP packet in place; see `SRTPSession.protectRTP`.
    @inline(__always)
    public func protectRTP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        try outbound.protectRTP(buffer, length: length)
    }

    /// Unprotects an SRTP packet in place.
    @inline(__always)
    public func unprotectRTP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        try inbound.unprotectRTP(buffer, length: length)
    }

    /// Protects an RTCP packet in place.
    @inline(__always)
    public func protectRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        try outbound.protectRTCP(buffer, length: length)
    }

    /// Unprotects an SRTCP packet in place.
    @inline(__always)
    public func unprotectRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        try inbound.unprotectRTCP(buffer, length: length)
    }
}
