#if canImport(Glibc)
import Glibc
#endif
import Testing
import COpenSSL
import CSRTP
import CSRTPCrypto
import RTCCrypto
@testable import RTCTransport

/// SRTP through the OpenSSL crypto types: registered, and producing exactly the packets the RFCs
/// define, computed here independently with OpenSSL's EVP (key derivation RFC 3711 §4.3,
/// AES-GCM RFC 7714 §8–§9, AES-CM and HMAC-SHA1 RFC 3711 §3.4/§4).
@Suite struct SRTPOpenSSLCryptoTests {
    static let masterKey: [UInt8] = (0..<16).map { UInt8(truncatingIfNeeded: $0 &* 29 &+ 3) }
    static let gcmSalt: [UInt8] = (0..<12).map { UInt8($0 &* 13 &+ 0x51) }
    static let cmSalt: [UInt8] = (0..<14).map { UInt8($0 &* 17 &+ 0x0e) }

    /// RFC 3711 §4.3.1 (key derivation rate 0): keystream under the master key, IV = the 112-bit
    /// master salt with the label XORed into octet 7, then two zero octets. libsrtp pads the
    /// 96-bit AEAD master salt with two zero octets to 112 bits.
    static func derive(salt: [UInt8], label: UInt8, length: Int) -> [UInt8] {
        var iv = salt + [UInt8](repeating: 0, count: 16 - salt.count)
        iv[7] ^= label
        return SRTPTests.aesCTR(key: masterKey, iv: iv, [UInt8](repeating: 0, count: length))
    }

    /// AES-128-GCM through OpenSSL EVP directly: ciphertext then the 16-byte tag.
    static func gcmSeal(key: [UInt8], iv: [UInt8], aad: [UInt8], _ plaintext: [UInt8]) -> [UInt8] {
        let ctx = EVP_CIPHER_CTX_new()
        defer { EVP_CIPHER_CTX_free(ctx) }
        var length: Int32 = 0
        var out = [UInt8](repeating: 0, count: plaintext.count + 16)
        _ = EVP_EncryptInit_ex(ctx, EVP_aes_128_gcm(), nil, key, iv)
        _ = EVP_EncryptUpdate(ctx, nil, &length, aad, Int32(aad.count))
        if !plaintext.isEmpty { _ = EVP_EncryptUpdate(ctx, &out, &length, plaintext, Int32(plaintext.count)) }
        var tag = [UInt8](repeating: 0, count: 16)
        _ = EVP_EncryptFinal_ex(ctx, &tag, &length)
        _ = EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, 16, &tag)
        return Array(out.prefix(plaintext.count)) + tag
    }

    static func be32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xff), UInt8(value >> 8 & 0xff), UInt8(value & 0xff)]
    }

    @Test func openSSLTypesAreRegisteredAtFirstUse() throws {
        _ = try SRTPSession(profile: .aeadAES128GCM, masterKeyAndSalt: Self.masterKey + Self.gcmSalt, direction: .outbound)
        let choice = getenv(SRTPLibrary.environmentVariable).map { String(cString: $0).lowercased() }
        if choice == "nss" || choice == "builtin" {
            // Asked to keep libsrtp's types (not switched here: other tests are creating sessions).
            #expect(SRTPLibrary.crypto == .builtIn)
        } else {
            #expect(SRTPLibrary.crypto == .openSSL)
            #expect(SRTPLibrary.useOpenSSLCrypto()) // already in use: nothing to do, reports true
            #expect(SRTPLibrary.crypto == .openSSL)
        }
    }

    /// libsrtp runs known answers before it swaps a type: a type whose answers are wrong is
    /// refused with `srtp_err_status_algo_fail` and the registered one stays in use.
    @Test func registrationRefusesATypeWithWrongKnownAnswers() throws {
        _ = SRTPLibrary.crypto
        let ours = try #require(srtc_srtp_openssl_auth_type(SRTP_HMAC_SHA1)).assumingMemoryBound(to: srtp_auth_type_t.self)
        // RFC 2202 test case 1 (key 20 × 0x0b, "Hi There"); its tag is altered below.
        let key = UnsafeMutablePointer<UInt8>.allocate(capacity: 20); key.initialize(repeating: 0x0b, count: 20)
        let data = UnsafeMutablePointer<UInt8>.allocate(capacity: 8); data.initialize(from: Array("Hi There".utf8), count: 8)
        let tag = UnsafeMutablePointer<UInt8>.allocate(capacity: 20)
        let good: [UInt8] = [0xb6, 0x17, 0x31, 0x86, 0x55, 0x05, 0x72, 0x64, 0xe2, 0x8b, 0xc0, 0xb6, 0xfb, 0x37, 0x8c, 0x8e,
                             0xf1, 0x46, 0xbe, 0x00]
        tag.initialize(from: good, count: 20)
        let wrongCase = UnsafeMutablePointer<srtp_auth_test_case_t>.allocate(capacity: 1)
        wrongCase.initialize(to: srtp_auth_test_case_t(key_length_octets: 20, key: key, data_length_octets: 8, data: data,
                                                       tag_length_octets: 20, tag: tag, next_test_case: nil))
        // Deliberately never freed: had libsrtp accepted the type, it would keep these pointers.
        let candidate = UnsafeMutablePointer<srtp_auth_type_t>.allocate(capacity: 1)
        candidate.initialize(to: ours.pointee)
        candidate.pointee.test_data = UnsafePointer(wrongCase)
        #expect(srtp_auth_type_self_test(candidate) == srtp_err_status_ok) // the right answer passes
        tag[19] ^= 0x01
        #expect(srtp_replace_auth_type(candidate, UInt32(SRTP_HMAC_SHA1)) == srtp_err_status_algo_fail)
        // HMAC-SHA1 still works: an AES-CM session round-trips.
        let sender = try SRTPSession(profile: .aes128CMSHA1_80, masterKeyAndSalt: Self.masterKey + Self.cmSalt, direction: .outbound)
        let receiver = try SRTPSession(profile: .aes128CMSHA1_80, masterKeyAndSalt: Self.masterKey + Self.cmSalt, direction: .inbound)
        let packet = SRTPTests.rtp(seq: 3)
        #expect(try SRTPTests.unprotect(receiver, try SRTPTests.protect(sender, packet)) == packet)
    }

    /// RFC 7714 §8: IV = session salt XOR (0x0000 ‖ SSRC ‖ ROC ‖ SEQ); AAD = the whole RTP header
    /// (CSRCs and extension included, §8.2); the packet is header ‖ ciphertext ‖ 16-byte tag.
    @Test(arguments: [(UInt16(0x1234), 0, false), (1, 1, false), (0xf17b, 38, true), (0xffff, 200, false), (7, 1200, true)])
    func gcmProtectMatchesTheRFC7714Construction(seq: UInt16, payloadLength: Int, withExtension: Bool) throws {
        let session = try SRTPSession(profile: .aeadAES128GCM, masterKeyAndSalt: Self.masterKey + Self.gcmSalt, direction: .outbound)
        let ssrc: UInt32 = 0x5501_a0b2
        var packet = SRTPTests.rtp(seq: seq, ssrc: ssrc, payloadLength: payloadLength)
        var headerLength = 12
        if withExtension {
            // V=2 X=1 CC=1; one CSRC; RFC 8285 one-byte extension block (0xBEDE, 1 word): id 1, len 1.
            packet[0] = 0x91
            packet.insert(contentsOf: [0xca, 0xfe, 0xf0, 0x0d, 0xbe, 0xde, 0x00, 0x01, 0x10, 0xaa, 0xbb, 0x00], at: 12)
            headerLength = 24
        }
        let protected = try SRTPTests.protect(session, packet)

        let key = Self.derive(salt: Self.gcmSalt, label: 0x00, length: 16)  // SRTP encryption key
        let salt = Self.derive(salt: Self.gcmSalt, label: 0x02, length: 12) // SRTP salting key
        var iv = [0, 0] + Self.be32(ssrc) + [0, 0, 0, 0] + [UInt8(seq >> 8), UInt8(seq & 0xff)]
        for i in 0..<12 { iv[i] ^= salt[i] }
        let header = Array(packet[..<headerLength])
        let expected = header + Self.gcmSeal(key: key, iv: iv, aad: header, Array(packet[headerLength...]))
        #expect(protected == expected)
    }

    /// RFC 7714 §9: SRTCP IV = salt XOR (0x0000 ‖ SSRC ‖ 0x0000 ‖ 0 ‖ 31-bit index); AAD = the
    /// first 8 octets ‖ E-flag and index; the packet is header ‖ ciphertext ‖ tag ‖ E|index.
    @Test func gcmProtectRTCPMatchesTheRFC7714Construction() throws {
        let session = try SRTPSession(profile: .aeadAES128GCM, masterKeyAndSalt: Self.masterKey + Self.gcmSalt, direction: .outbound)
        // Sender report, no report blocks: V=2 RC=0 PT=200 length=6, SSRC "Mars", NTP, RTP ts, counts.
        let rtcp: [UInt8] = [0x80, 0xc8, 0x00, 0x06, 0x4d, 0x61, 0x72, 0x73, 0x4e, 0x54, 0x50, 0x31, 0x4e, 0x54, 0x50, 0x32,
                             0x52, 0x54, 0x50, 0x20, 0x00, 0x00, 0x04, 0x2a, 0x00, 0x00, 0xe9, 0x30]
        for expectedIndex in UInt32(1)...3 {
            let protected = try SRTPTests.protect(session, rtcp, rtcp: true)
            #expect(protected.count == rtcp.count + 16 + 4)
            let trailer = 0x8000_0000 | expectedIndex // E = 1 (encrypted), then the SRTCP index
            #expect(Array(protected.suffix(4)) == Self.be32(trailer))
            let key = Self.derive(salt: Self.gcmSalt, label: 0x03, length: 16)  // SRTCP encryption key
            let salt = Self.derive(salt: Self.gcmSalt, label: 0x05, length: 12) // SRTCP salting key
            var iv = [0, 0] + Array(rtcp[4..<8]) + [0, 0] + Self.be32(expectedIndex)
            for i in 0..<12 { iv[i] ^= salt[i] }
            let sealed = Self.gcmSeal(key: key, iv: iv, aad: Array(rtcp[..<8]) + Self.be32(trailer), Array(rtcp[8...]))
            #expect(protected == Array(rtcp[..<8]) + sealed + Self.be32(trailer))
        }
    }

    /// RFC 3711 §3.4: SRTCP with AES-CM (IV per §4.1.1 with the SRTCP index) and an 80-bit
    /// HMAC-SHA1 tag over header ‖ ciphertext ‖ E|index, appended after the index.
    @Test func cmProtectRTCPMatchesTheRFC3711Construction() throws {
        let session = try SRTPSession(profile: .aes128CMSHA1_80, masterKeyAndSalt: Self.masterKey + Self.cmSalt, direction: .outbound)
        let rtcp: [UInt8] = [0x80, 0xc9, 0x00, 0x07, 0x11, 0x22, 0x33, 0x44] + (0..<24).map { UInt8($0) }
        let protected = try SRTPTests.protect(session, rtcp, rtcp: true)
        #expect(protected.count == rtcp.count + 4 + 10)
        let trailer = Self.be32(0x8000_0001)
        #expect(Array(protected[rtcp.count..<(rtcp.count + 4)]) == trailer)
        let key = Self.derive(salt: Self.cmSalt, label: 0x03, length: 16)
        let authKey = Self.derive(salt: Self.cmSalt, label: 0x04, length: 20)
        let salt = Self.derive(salt: Self.cmSalt, label: 0x05, length: 14)
        var iv = salt + [0, 0]
        for i in 0..<4 { iv[4 + i] ^= rtcp[4 + i] } // SSRC · 2^64
        iv[13] ^= 1                                 // index 1 · 2^16
        let ciphertext = SRTPTests.aesCTR(key: key, iv: iv, Array(rtcp[8...]))
        let authenticated = Array(rtcp[..<8]) + ciphertext + trailer
        let tag = Array(Digest.hmacSHA1(key: authKey, message: authenticated).prefix(10))
        #expect(protected == authenticated + tag)
    }

    /// The tag's last octet is checked too (both profiles), and so is a tag cut short.
    @Test(arguments: SRTPProfile.allCases)
    func everyTagOctetIsVerified(profile: SRTPProfile) throws {
        let key = Self.masterKey + (profile == .aeadAES128GCM ? Self.gcmSalt : Self.cmSalt)
        let sender = try SRTPSession(profile: profile, masterKeyAndSalt: key, direction: .outbound)
        let receiver = try SRTPSession(profile: profile, masterKeyAndSalt: key, direction: .inbound)
        let protected = try SRTPTests.protect(sender, SRTPTests.rtp(seq: 40, payloadLength: 100))
        for offset in 1...profile.rtpOverhead {
            var tampered = protected
            tampered[tampered.count - offset] ^= 0x01
            #expect(throws: SRTPError.authenticationFailed) { try SRTPTests.unprotect(receiver, tampered) }
        }
        #expect(throws: SRTPError.self) { try SRTPTests.unprotect(receiver, Array(protected.dropLast())) }
        #expect(try SRTPTests.unprotect(receiver, protected) == SRTPTests.rtp(seq: 40, payloadLength: 100))
    }
}
