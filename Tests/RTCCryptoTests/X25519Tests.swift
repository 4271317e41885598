import RTCCrypto
import Testing

/// X25519 (RFC 7748) through OpenSSL: the RFC's Diffie-Hellman vectors and the refusals.
struct X25519Tests {
    static func hex(_ text: String) -> [UInt8] { Encoding.fromHex(text)! }

    /// RFC 7748 §6.1: Alice's and Bob's private keys, their public keys and the shared secret.
    @Test func rfc7748DiffieHellmanVectors() throws {
        let alice = try X25519KeyPair(privateKey: Self.hex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a"))
        let bob = try X25519KeyPair(privateKey: Self.hex("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb"))
        #expect(alice.publicKey == Self.hex("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a"))
        #expect(bob.publicKey == Self.hex("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f"))
        let shared = Self.hex("4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742")
        #expect(try alice.sharedSecret(with: bob.publicKey) == shared)
        #expect(try bob.sharedSecret(with: alice.publicKey) == shared)
    }

    @Test func newPairsAgree() throws {
        let a = X25519KeyPair(), b = X25519KeyPair()
        #expect(a.publicKey != b.publicKey)
        #expect(try a.sharedSecret(with: b.publicKey) == b.sharedSecret(with: a.publicKey))
    }

    @Test func lowOrderPointsAndWrongLengthsAreRefused() {
        let pair = X25519KeyPair()
        // u = 0 and u = 1 are points of small order: the shared secret would be all zeros.
        #expect(throws: X25519Error.lowOrderPoint) { try pair.sharedSecret(with: [UInt8](repeating: 0, count: 32)) }
        #expect(throws: X25519Error.lowOrderPoint) { try pair.sharedSecret(with: [1] + [UInt8](repeating: 0, count: 31)) }
        #expect(throws: X25519Error.wrongKeyLength) { try pair.sharedSecret(with: [UInt8](repeating: 9, count: 31)) }
        #expect(throws: X25519Error.wrongKeyLength) { try X25519KeyPair(privateKey: [1, 2, 3]) }
    }
}
