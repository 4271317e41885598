import Testing
import COpenSSL
import RTCCrypto
@testable import RTCTransport

@Suite struct SRTPTests {
    /// RFC 3711 Appendix B.3 master key and salt, and the session keys the RFC derives from them.
    static let masterKey = Encoding.fromHex("E1F97A0D3E018BE0D64FA32C06DE4139")!
    static let masterSalt = Encoding.fromHex("0EC675AD498AFEEBB6960B3AABE6")!
    static let cipherKey = Encoding.fromHex("C61E7A93744F39EE10734AFE3FF7A087")!
    static let cipherSalt = Encoding.fromHex("30CBBC08863D8C85D49DB34A9AE1")!
    static let authKey = Encoding.fromHex("CEBE321F6FF7716B6FD4AB49AF256A156D38BAA4")!

    /// An RTP packet: V=2, PT=96, seq, ts=0x01020304, SSRC, then `payloadLength` pattern bytes.
    static func rtp(seq: UInt16, ssrc: UInt32 = 0xDEAD_BEEF, payloadLength: Int = 32) -> [UInt8] {
        var p: [UInt8] = [0x80, 96, UInt8(seq >> 8), UInt8(seq & 0xff), 1, 2, 3, 4,
                          UInt8(ssrc >> 24), UInt8(ssrc >> 16 & 0xff), UInt8(ssrc >> 8 & 0xff), UInt8(ssrc & 0xff)]
        p += (0..<payloadLength).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 1) }
        return p
    }

    /// A receiver report: V=2, RC=0, PT=201, length 1, sender SSRC.
    static let rtcp: [UInt8] = [0x80, 201, 0x00, 0x01, 0x11, 0x22, 0x33, 0x44]

    static func protect(_ session: SRTPSession, _ packet: [UInt8], rtcp: Bool = false) throws -> [UInt8] {
        var buffer = packet + [UInt8](repeating: 0, count: 64)
        let length = try buffer.withUnsafeMutableBytes { raw in
            rtcp ? try session.protectRTCP(raw, length: packet.count) : try session.protectRTP(raw, length: packet.count)
        }
        return Array(buffer.prefix(length))
    }

    static func unprotect(_ session: SRTPSession, _ packet: [UInt8], rtcp: Bool = false) throws(SRTPError) -> [UInt8] {
        var buffer = packet
        var result: Result<Int, SRTPError> = .failure(.badPacketLength)
        buffer.withUnsafeMutableBytes { raw in
            do throws(SRTPError) {
                result = .success(rtcp ? try session.unprotectRTCP(raw, length: packet.count) : try session.unprotectRTP(raw, length: packet.count))
            } catch { result = .failure(error) }
        }
        return Array(buffer.prefix(try result.get()))
    }

    /// AES-128 in counter mode through OpenSSL, independent of libsrtp.
    static func aesCTR(key: [UInt8], iv: [UInt8], _ input: [UInt8]) -> [UInt8] {
        let ctx = EVP_CIPHER_CTX_new()
        defer { EVP_CIPHER_CTX_free(ctx) }
        _ = EVP_EncryptInit_ex(ctx, EVP_aes_128_ctr(), nil, key, iv)
        var out = [UInt8](repeating: 0, count: input.count + 16)
        var length: Int32 = 0
        _ = EVP_EncryptUpdate(ctx, &out, &length, input, Int32(input.count))
        return Array(out.prefix(Int(length)))
    }

    // RFC 3711 Appendix B.3: protecting through our wrapper with the B.3 master key must produce
    // exactly what the B.3 session keys produce by the RFC's transform (§4.1.1 AES-CM, §4.2 HMAC-SHA1).
    @Test func aesCMProtectUsesTheRFC3711AppendixB3SessionKeys() throws {
        let session = try SRTPSession(profile: .aes128CMSHA1_80, masterKeyAndSalt: Self.masterKey + Self.masterSalt, direction: .outbound)
        let seq: UInt16 = 0x1234, ssrc: UInt32 = 0xDEAD_BEEF
        let packet = Self.rtp(seq: seq, ssrc: ssrc)
        let protected = try Self.protect(session, packet)
        #expect(protected.count == packet.count + 10)
        #expect(Array(protected.prefix(12)) == Array(packet.prefix(12))) // header stays clear

        // IV = (salt · 2^16) ⊕ (SSRC · 2^64) ⊕ (index · 2^16), RFC 3711 §4.1.1; index = ROC(0) ‖ SEQ.
        var iv = Self.cipherSalt + [0, 0]
        for i in 0..<4 { iv[4 + i] ^= UInt8(truncatingIfNeeded: ssrc >> UInt32(24 - 8 * i)) }
        iv[12] ^= UInt8(seq >> 8); iv[13] ^= UInt8(seq & 0xff)
        let ciphertext = Self.aesCTR(key: Self.cipherKey, iv: iv, Array(packet[12...]))
        #expect(Array(protected[12..<packet.count]) == ciphertext)
        // Tag = first 80 bits of HMAC-SHA1(auth key, packet ‖ ROC), RFC 3711 §4.2.
        let mac = Digest.hmacSHA1(key: Self.authKey, message: Array(protected.prefix(packet.count)) + [0, 0, 0, 0])
        #expect(Array(protected.suffix(10)) == Array(mac.prefix(10)))
    }

    @Test(arguments: SRTPProfile.allCases)
    func rtpAndRTCPRoundTrip(profile: SRTPProfile) throws {
        let key = SecureRandom.bytes(profile.masterLength)
        let sender = try SRTPSession(profile: profile, masterKeyAndSalt: key, direction: .outbound)
        let receiver = try SRTPSession(profile: profile, masterKeyAndSalt: key, direction: .inbound)
        for seq in UInt16(100)..<110 {
            let packet = Self.rtp(seq: seq, payloadLength: 200)
            let protected = try Self.protect(sender, packet)
            #expect(protected.count == packet.count + profile.rtpOverhead)
            #expect(protected != packet + [UInt8](repeating: 0, count: profile.rtpOverhead))
            #expect(try Self.unprotect(receiver, protected) == packet)
        }
        let protectedRTCP = try Self.protect(sender, Self.rtcp, rtcp: true)
        #expect(protectedRTCP.count == Self.rtcp.count + profile.rtcpOverhead)
        #expect(try Self.unprotect(receiver, protectedRTCP, rtcp: true) == Self.rtcp)
    }

    @Test(arguments: SRTPProfile.allCases)
    func replayedPacketIsRejected(profile: SRTPProfile) throws {
        let key = SecureRandom.bytes(profile.masterLength)
        let sender = try SRTPSession(profile: profile, masterKeyAndSalt: key, direction: .outbound)
        let receiver = try SRTPSession(profile: profile, masterKeyAndSalt: key, direction: .inbound)
        let protected = try Self.protect(sender, Self.rtp(seq: 7))
        _ = try Self.unprotect(receiver, protected)
        #expect(throws: SRTPError.replayed) { try Self.unprotect(receiver, protected) }
    }

    @Test(arguments: SRTPProfile.allCases)
    func tamperedPacketFailsAuthentication(profile: SRTPProfile) throws {
        let key = SecureRandom.bytes(profile.masterLength)
        let sender = try SRTPSession(profile: profile, masterKeyAndSalt: key, direction: .outbound)
        let receiver = try SRTPSession(profile: profile, masterKeyAndSalt: key, direction: .inbound)
        var protected = try Self.protect(sender, Self.rtp(seq: 9))
        protected[20] ^= 0x40
        #expect(throws: SRTPError.authenticationFailed) { try Self.unprotect(receiver, protected) }
    }

    @Test(arguments: SRTPProfile.allCases)
    func garbageAndShortInputFailCleanly(profile: SRTPProfile) throws {
        let receiver = try SRTPSession(profile: profile, masterKeyAndSalt: SecureRandom.bytes(profile.masterLength), direction: .inbound)
        var rng = SystemRandomNumberGenerator()
        for length in 0..<300 {
            var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
            if length > 0 { bytes[0] = 0x80 | (bytes[0] & 0x3f) }
            #expect(throws: SRTPError.self) { try Self.unprotect(receiver, bytes) }
            #expect(throws: SRTPError.self) { try Self.unprotect(receiver, bytes, rtcp: true) }
        }
    }

    @Test func protectRefusesABufferWithoutRoomForTheTag() throws {
        let sender = try SRTPSession(profile: .aeadAES128GCM, masterKeyAndSalt: SecureRandom.bytes(28), direction: .outbound)
        var packet = Self.rtp(seq: 1)
        let count = packet.count
        #expect(throws: SRTPError.bufferTooSmall) {
            try packet.withUnsafeMutableBytes { try sender.protectRTP($0, length: count) }
        }
    }

    @Test func wrongKeyLengthIsRejected() {
        #expect(throws: SRTPError.badKeyLength(expected: 30, got: 28)) {
            try SRTPSession(profile: .aes128CMSHA1_80, masterKeyAndSalt: [UInt8](repeating: 1, count: 28), direction: .inbound)
        }
    }

    @Test(arguments: SRTPProfile.allCases)
    func contextsFromKeyingMaterialTalkToEachOther(profile: SRTPProfile) throws {
        let material = SecureRandom.bytes(2 * profile.masterLength)
        let client = try SRTPContext(profile: profile, keyingMaterial: material, isDTLSClient: true)
        let server = try SRTPContext(profile: profile, keyingMaterial: material, isDTLSClient: false)
        let packet = Self.rtp(seq: 1)
        #expect(try Self.unprotect(server.inbound, try Self.protect(client.outbound, packet)) == packet)
        #expect(try Self.unprotect(client.inbound, try Self.protect(server.outbound, packet)) == packet)
        // A packet protected with the client's key does not verify with the client's own inbound key.
        #expect(throws: SRTPError.self) { try Self.unprotect(client.inbound, try Self.protect(client.outbound, Self.rtp(seq: 2))) }
    }
}
