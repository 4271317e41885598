#if canImport(Glibc)
import Glibc
#endif
import Testing
import CSRTP
import CSRTPCrypto
import TestRandom
@testable import RTCTransport

/// `CSRTPCrypto`'s cipher and auth types next to libsrtp's built-in ones (NSS on Debian), called
/// one primitive at a time through libsrtp's own cipher API: same inputs, same bytes out.
@Suite struct SRTPCryptoTypeTests {
    static let ok = srtp_err_status_ok

    /// Our type object for a libsrtp cipher id. libsrtp (and NSS under it) is initialized first.
    static func ours(cipher id: Int32) throws -> UnsafePointer<srtp_cipher_type_t> {
        try #require(SRTPLibrary.isReady)
        let raw = try #require(srtc_srtp_openssl_cipher_type(id))
        return raw.assumingMemoryBound(to: srtp_cipher_type_t.self)
    }

    /// libsrtp's built-in type object: exported by libsrtp2.so, though absent from its headers.
    static func builtIn<T>(_ symbol: String, as: T.Type) throws -> UnsafePointer<T> {
        try #require(SRTPLibrary.isReady)
        let raw = try #require(dlsym(nil, symbol), "libsrtp2 exports \(symbol)")
        return UnsafeRawPointer(raw).assumingMemoryBound(to: T.self)
    }

    /// One packet through a cipher type: encrypt (`decrypt == false`) or decrypt `input` under
    /// `key`/`iv`/`aad`; GCM appends or checks the tag. Returns the bytes out, or the status.
    static func run(_ type: UnsafePointer<srtp_cipher_type_t>, key: [UInt8], tagLength: Int32, iv: [UInt8],
                    aad: [UInt8], input: [UInt8], decrypt: Bool) -> Result<[UInt8], SRTPError> {
        var cipher: UnsafeMutablePointer<srtp_cipher_t>?
        guard srtp_cipher_type_alloc(type, &cipher, Int32(key.count), tagLength) == ok, let cipher else {
            return .failure(.failed(status: -1))
        }
        defer { _ = srtp_cipher_dealloc(cipher) }
        let isGCM = cipher.pointee.algorithm == SRTP_AES_GCM_128 || cipher.pointee.algorithm == SRTP_AES_GCM_256
        var iv = iv
        var buffer = input + [UInt8](repeating: 0, count: 32) // NSS writes its 16-byte tag past the data
        var length = UInt32(input.count)
        let direction = decrypt ? srtp_direction_decrypt : srtp_direction_encrypt
        var status = srtp_cipher_init(cipher, key)
        if status == ok { status = srtp_cipher_set_iv(cipher, &iv, Int32(direction.rawValue)) }
        if status == ok, isGCM {
            // Two calls, as SRTCP makes them (header, then the E-flag and index word).
            let split = aad.count / 2
            status = srtp_cipher_set_aad(cipher, Array(aad[..<split]), UInt32(split))
            if status == ok { status = srtp_cipher_set_aad(cipher, Array(aad[split...]), UInt32(aad.count - split)) }
        }
        if status == ok {
            status = buffer.withUnsafeMutableBufferPointer { b in
                decrypt ? srtp_cipher_decrypt(cipher, b.baseAddress, &length) : srtp_cipher_encrypt(cipher, b.baseAddress, &length)
            }
        }
        if status == ok, isGCM, !decrypt {
            var tagLength: UInt32 = 0
            status = buffer.withUnsafeMutableBufferPointer { srtp_cipher_get_tag(cipher, $0.baseAddress! + Int(length), &tagLength) }
            length += tagLength
        }
        guard status == ok else { return .failure(SRTPSession.error(status)) }
        return .success(Array(buffer.prefix(Int(length))))
    }

    /// HMAC through an auth type: start, update with all parts but the last, compute with it.
    static func mac(_ type: UnsafePointer<srtp_auth_type_t>, key: [UInt8], parts: [[UInt8]], tagLength: Int32) throws -> [UInt8] {
        var auth: UnsafeMutablePointer<srtp_auth_t>?
        #expect(type.pointee.alloc!(&auth, Int32(key.count), tagLength) == ok)
        let a = try #require(auth)
        defer { _ = a.pointee.type.pointee.dealloc!(a) }
        let functions = a.pointee.type.pointee
        #expect(functions.`init`!(a.pointee.state, key, Int32(key.count)) == ok)
        #expect(functions.start!(a.pointee.state) == ok)
        for part in parts.dropLast() { #expect(functions.update!(a.pointee.state, part, Int32(part.count)) == ok) }
        let last = parts.last ?? []
        var tag = [UInt8](repeating: 0, count: Int(tagLength))
        #expect(functions.compute!(a.pointee.state, last, Int32(last.count), tagLength, &tag) == ok)
        return tag
    }

    // MARK: - Known answers

    /// What registration ran: each type's own vectors (RFC 3711 B.2/B.3, RFC 6188 §7.1,
    /// RFC 7714 §16, the GCM spec's test cases, RFC 2202) and the built-in type's vectors.
    @Test(arguments: [(SRTP_AES_ICM_128, "srtp_aes_icm_128"), (SRTP_AES_ICM_256, "srtp_aes_icm_256"),
                      (SRTP_AES_GCM_128, "srtp_aes_gcm_128"), (SRTP_AES_GCM_256, "srtp_aes_gcm_256")])
    func cipherPassesItsOwnAndTheBuiltInKnownAnswers(id: Int32, builtInSymbol: String) throws {
        let type = try Self.ours(cipher: id)
        #expect(type.pointee.id == UInt32(id))
        #expect(srtp_cipher_type_self_test(type) == Self.ok)
        let builtIn = try Self.builtIn(builtInSymbol, as: srtp_cipher_type_t.self)
        #expect(srtp_cipher_type_test(type, builtIn.pointee.test_data) == Self.ok)
    }

    @Test func hmacPassesItsOwnAndTheBuiltInKnownAnswers() throws {
        try #require(SRTPLibrary.isReady)
        let type = try #require(srtc_srtp_openssl_auth_type(SRTP_HMAC_SHA1)).assumingMemoryBound(to: srtp_auth_type_t.self)
        #expect(srtp_auth_type_self_test(type) == Self.ok)
        let builtIn = try Self.builtIn("srtp_hmac", as: srtp_auth_type_t.self)
        #expect(srtp_auth_type_test(type, builtIn.pointee.test_data) == Self.ok)
    }

    // MARK: - Same bytes as the built-in types

    @Test(arguments: [(SRTP_AES_GCM_128, "srtp_aes_gcm_128", 28), (SRTP_AES_GCM_256, "srtp_aes_gcm_256", 44)])
    func gcmMatchesTheBuiltInTypeOnRandomPackets(id: Int32, builtInSymbol: String, keyLength: Int) throws {
        let ours = try Self.ours(cipher: id)
        let builtIn = try Self.builtIn(builtInSymbol, as: srtp_cipher_type_t.self)
        var rng = SeededRandom(seed: 0x6C_D7_14 &+ UInt64(id))
        for round in 0..<200 {
            let tagLength: Int32 = round % 4 == 3 ? 8 : 16
            let key = rng.bytes(keyLength), iv = rng.bytes(12)
            let aad = rng.bytes(Int(rng.next() % 40)), plaintext = rng.bytes(Int(rng.next() % 1300))
            let sealed = try Self.run(ours, key: key, tagLength: tagLength, iv: iv, aad: aad, input: plaintext, decrypt: false).get()
            let reference = try Self.run(builtIn, key: key, tagLength: tagLength, iv: iv, aad: aad, input: plaintext, decrypt: false).get()
            let same = sealed == reference // (a Bool, so a failure names the round, not 1300 bytes)
            #expect(same, "round \(round)")
            #expect(sealed.count == plaintext.count + Int(tagLength))
            // Each opens what the other sealed.
            #expect(try Self.run(ours, key: key, tagLength: tagLength, iv: iv, aad: aad, input: reference, decrypt: true).get() == plaintext)
            #expect(try Self.run(builtIn, key: key, tagLength: tagLength, iv: iv, aad: aad, input: sealed, decrypt: true).get() == plaintext)
            // Any flipped bit (ciphertext, tag, or AAD) is an authentication failure.
            var tampered = sealed
            tampered[Int(rng.next() % UInt64(tampered.count))] ^= 1 << (rng.next() % 8)
            #expect(Self.run(ours, key: key, tagLength: tagLength, iv: iv, aad: aad, input: tampered, decrypt: true)
                    == .failure(.authenticationFailed))
            if !aad.isEmpty {
                var badAAD = aad
                badAAD[0] ^= 0x80
                #expect(Self.run(ours, key: key, tagLength: tagLength, iv: iv, aad: badAAD, input: sealed, decrypt: true)
                        == .failure(.authenticationFailed))
            }
        }
    }

    @Test(arguments: [(SRTP_AES_ICM_128, "srtp_aes_icm_128", 30), (SRTP_AES_ICM_256, "srtp_aes_icm_256", 46)])
    func icmMatchesTheBuiltInTypeOnRandomPackets(id: Int32, builtInSymbol: String, keyLength: Int) throws {
        let ours = try Self.ours(cipher: id)
        let builtIn = try Self.builtIn(builtInSymbol, as: srtp_cipher_type_t.self)
        var rng = SeededRandom(seed: 0x3711 &+ UInt64(id))
        for round in 0..<200 {
            let key = rng.bytes(keyLength)
            // The IV's last two octets are the block counter, zero as SRTP builds it (§4.1.1).
            let iv = rng.bytes(14) + [0, 0]
            let input = rng.bytes(Int(rng.next() % 1300))
            let encrypted = try Self.run(ours, key: key, tagLength: 0, iv: iv, aad: [], input: input, decrypt: false).get()
            let reference = try Self.run(builtIn, key: key, tagLength: 0, iv: iv, aad: [], input: input, decrypt: false).get()
            let same = encrypted == reference
            #expect(same, "round \(round)")
            #expect(try Self.run(ours, key: key, tagLength: 0, iv: iv, aad: [], input: encrypted, decrypt: true).get() == input)
        }
    }

    @Test func hmacMatchesTheBuiltInTypeOnRandomMessages() throws {
        try #require(SRTPLibrary.isReady)
        let ours = try #require(srtc_srtp_openssl_auth_type(SRTP_HMAC_SHA1)).assumingMemoryBound(to: srtp_auth_type_t.self)
        let builtIn = try Self.builtIn("srtp_hmac", as: srtp_auth_type_t.self)
        var rng = SeededRandom(seed: 2202)
        for round in 0..<200 {
            let key = rng.bytes(20) // the SRTP authentication key length (RFC 3711 §8.2)
            let parts = [rng.bytes(Int(rng.next() % 1300)), rng.bytes(4)] // packet, then ROC
            let tagLength: Int32 = round % 2 == 0 ? 10 : 20
            #expect(try Self.mac(ours, key: key, parts: parts, tagLength: tagLength)
                    == Self.mac(builtIn, key: key, parts: parts, tagLength: tagLength), "round \(round)")
        }
    }
}
