import RTCCrypto
import SMeetingProtocol

/// The cryptography of an E2EE meeting's key exchange (docs/e2ee.md, "E2EE meetings"): sealing
/// the meeting key to one member, opening it, the per-sender SFrame keys it gives, and the
/// verification code. The web SDK computes the same with WebCrypto (web/smeeting/e2ee-meeting.js).
///
///     shared   = X25519(sender private, recipient public)                       (RFC 7748 §6.1)
///     wrap_key = HKDF-SHA256(shared, salt "", "SMeeting E2EE seal v1" ‖ sender public ‖ recipient public, 32)
///     sealed   = AES-256-GCM(wrap_key, random nonce, aad, grant)
///     aad      = version ‖ type ‖ epoch ‖ sender public ‖ nonce ‖ len ‖ sender uid ‖ len ‖ recipient uid
enum MeetingKeySeal {
    static let sealLabel = Array("SMeeting E2EE seal v1".utf8)
    static let senderLabel = "SMeeting E2EE sender "
    static let codeLabel = Array("SMeeting E2EE verification v1".utf8)

    /// `grant` sealed by `sender` (uid and key pair) to `recipient` for `epoch`.
    static func seal(_ grant: MeetingKeyGrant, epoch: UInt8, from sender: String, keyPair: X25519KeyPair,
                     to recipient: String, publicKey: [UInt8]) throws(MeetingE2EEError) -> MeetingKeyMessage.SealedKey {
        let wrapKey = try Self.wrapKey(keyPair: keyPair, senderPublic: keyPair.publicKey, recipientPublic: publicKey)
        var sealed = MeetingKeyMessage.SealedKey(epoch: epoch, senderPublicKey: keyPair.publicKey,
                                                 nonce: SecureRandom.bytes(AESGCM.nonceLength), ciphertext: [])
        sealed.ciphertext = AESGCM.seal(key: wrapKey, nonce: sealed.nonce, plaintext: grant.bytes,
                                        aad: aad(sealed, sender: sender, recipient: recipient))
        return sealed
    }

    /// Opens a sealed key that `sender` sent to `recipient` (this client, holding `keyPair`).
    static func open(_ sealed: MeetingKeyMessage.SealedKey, from sender: String, to recipient: String,
                     keyPair: X25519KeyPair) throws(MeetingE2EEError) -> MeetingKeyGrant {
        let wrapKey = try Self.wrapKey(keyPair: keyPair, senderPublic: sealed.senderPublicKey, recipientPublic: keyPair.publicKey)
        guard let plain = AESGCM.open(key: wrapKey, nonce: sealed.nonce, sealed: sealed.ciphertext,
                                      aad: aad(sealed, sender: sender, recipient: recipient)) else { throw .authenticationFailed }
        do { return try MeetingKeyGrant(parsing: plain) } catch { throw .malformed(error) }
    }

    /// The base key sender `uid` encrypts its frames under with meeting key `meetingKey` (16 bytes:
    /// SFrame's `base_key`, RFC 9605 §4.4.2; one per sender, as §4.4.1 requires).
    static func senderKey(meetingKey: [UInt8], uid: String) -> [UInt8] {
        HKDF.sha256(ikm: meetingKey, salt: [], info: Array((senderLabel + uid).utf8), length: 16)
    }

    /// The short code members compare: three groups of four digits from the meeting key, the
    /// epoch and the roster (each 2 bytes of HKDF output, big-endian, modulo 10000).
    static func verificationCode(_ grant: MeetingKeyGrant, epoch: UInt8) -> String {
        let bytes = HKDF.sha256(ikm: grant.meetingKey, salt: [], info: codeLabel + [epoch] + grant.rosterBytes, length: 6)
        return (0..<3).map { group in
            let value = (Int(bytes[2 * group]) << 8 | Int(bytes[2 * group + 1])) % 10_000
            let digits = String(value)
            return String(repeating: "0", count: 4 - digits.count) + digits
        }.joined(separator: " ")
    }

    private static func wrapKey(keyPair: X25519KeyPair, senderPublic: [UInt8], recipientPublic: [UInt8]) throws(MeetingE2EEError) -> [UInt8] {
        let peer = keyPair.publicKey == senderPublic ? recipientPublic : senderPublic
        let shared: [UInt8]
        do { shared = try keyPair.sharedSecret(with: peer) } catch { throw .badPublicKey }
        return HKDF.sha256(ikm: shared, salt: [], info: sealLabel + senderPublic + recipientPublic, length: AESGCM.keyLength)
    }

    private static func aad(_ sealed: MeetingKeyMessage.SealedKey, sender: String, recipient: String) -> [UInt8] {
        let s = Array(sender.utf8.prefix(255)), r = Array(recipient.utf8.prefix(255))
        return sealed.header + [UInt8(s.count)] + s + [UInt8(r.count)] + r
    }
}

/// Why a key-exchange message of an E2EE meeting was not used (logged; docs/e2ee.md).
enum MeetingE2EEError: Error, Equatable {
    /// The message does not parse.
    case malformed(MeetingKeyMessageError)
    /// A public key that is not a usable X25519 key (wrong length, low-order point).
    case badPublicKey
    /// The sealed key does not open with this member's key: not sealed to it, or changed on the way.
    case authenticationFailed
    /// A sealed key from someone who is not the meeting's host.
    case notFromHost(String)
    /// The roster does not hold this member with its own public key, or the sender with the key it sealed with.
    case rosterMismatch
    /// An epoch not above the one in use (a replay, or an old message).
    case staleEpoch(UInt8)
}
