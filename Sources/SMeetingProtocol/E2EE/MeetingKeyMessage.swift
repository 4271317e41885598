/// The key-exchange messages of an end-to-end encrypted meeting (docs/e2ee.md, "E2EE meetings"),
/// carried as user data on the meeting's SRTC channel (topic `smeeting.e2ee`, docs/protocol.md,
/// "Data messages"): the server relays them without reading them. Every message starts with the
/// format version (1) and its type:
///
///     announce   = 01 | 01 | public key (32)
///     sealed key = 01 | 02 | epoch (1) | sender public key (32) | nonce (12) | AES-256-GCM ciphertext ‖ tag (≥ 16)
///
/// `announce`: a member's X25519 public key (RFC 7748), sent to everyone at entry. `sealed key`:
/// the host's client hands one member the meeting key of `epoch`, sealed to that member's public
/// key; its plaintext is a `MeetingKeyGrant`.
public enum MeetingKeyMessage: Equatable, Sendable {
    case announce(publicKey: [UInt8])
    case sealedKey(SealedKey)

    /// The data channel topic the messages travel under.
    public static let topic = "smeeting.e2ee"
    /// The format version this SDK writes and reads.
    public static let version: UInt8 = 1
    /// X25519 public keys and the meeting key are 32 bytes; AES-GCM nonces 12, tags 16.
    public static let keyLength = 32, nonceLength = 12, tagLength = 16

    /// A meeting key sealed to one member.
    public struct SealedKey: Equatable, Sendable {
        /// Which meeting key (0–255, one higher at each rotation).
        public var epoch: UInt8
        /// The sealing client's X25519 public key.
        public var senderPublicKey: [UInt8]
        public var nonce: [UInt8]
        /// The AES-256-GCM ciphertext of the grant, tag included.
        public var ciphertext: [UInt8]

        public init(epoch: UInt8, senderPublicKey: [UInt8], nonce: [UInt8], ciphertext: [UInt8]) {
            self.epoch = epoch
            self.senderPublicKey = senderPublicKey
            self.nonce = nonce
            self.ciphertext = ciphertext
        }

        /// The bytes before the ciphertext (version, type, epoch, sender key, nonce): authenticated
        /// with it.
        public var header: [UInt8] {
            [MeetingKeyMessage.version, 2, epoch] + senderPublicKey + nonce
        }
    }

    /// Reads one message.
    public init(parsing bytes: [UInt8]) throws(MeetingKeyMessageError) {
        guard bytes.count >= 2 else { throw .truncated }
        guard bytes[0] == Self.version else { throw .unsupportedVersion(bytes[0]) }
        switch bytes[1] {
        case 1:
            guard bytes.count >= 2 + Self.keyLength else { throw .truncated }
            guard bytes.count == 2 + Self.keyLength else { throw .trailingBytes }
            self = .announce(publicKey: Array(bytes[2...]))
        case 2:
            let fixed = 3 + Self.keyLength + Self.nonceLength
            guard bytes.count >= fixed + Self.tagLength else { throw .truncated }
            self = .sealedKey(SealedKey(epoch: bytes[2], senderPublicKey: Array(bytes[3 ..< 3 + Self.keyLength]),
                                        nonce: Array(bytes[3 + Self.keyLength ..< fixed]), ciphertext: Array(bytes[fixed...])))
        default:
            throw .unknownType(bytes[1])
        }
    }

    /// The message's bytes.
    public var bytes: [UInt8] {
        switch self {
        case .announce(let publicKey): return [Self.version, 1] + publicKey
        case .sealedKey(let sealed): return sealed.header + sealed.ciphertext
        }
    }
}

/// What a sealed key carries once opened: the meeting key and the roster it was sealed to.
///
///     grant  = meeting key (32) | count (2, big-endian) | count × entry
///     entry  = uid length (1, 1–255) | uid (UTF-8) | X25519 public key (32)
///
/// Entries are sorted by uid (bytewise, no repeats), so every member holds the same bytes; the
/// verification code is computed from them (docs/e2ee.md).
public struct MeetingKeyGrant: Equatable, Sendable {
    public struct Member: Equatable, Sendable {
        public var uid: String
        public var publicKey: [UInt8]

        public init(uid: String, publicKey: [UInt8]) {
            self.uid = uid
            self.publicKey = publicKey
        }
    }

    public var meetingKey: [UInt8]
    /// The members the key was sealed to (the host included), sorted by uid.
    public var roster: [Member]

    /// Sorts `roster` by uid.
    public init(meetingKey: [UInt8], roster: [Member]) {
        self.meetingKey = meetingKey
        self.roster = roster.sorted { $0.uid.utf8.lexicographicallyPrecedes($1.uid.utf8) }
    }

    /// Reads a grant's plaintext.
    public init(parsing bytes: [UInt8]) throws(MeetingKeyMessageError) {
        let keyLength = MeetingKeyMessage.keyLength
        guard bytes.count >= keyLength + 2 else { throw .truncated }
        meetingKey = Array(bytes[..<keyLength])
        roster = try Self.parseRoster(bytes[keyLength...])
    }

    /// The grant's plaintext.
    public var bytes: [UInt8] { meetingKey + rosterBytes }

    /// The roster as it travels (count and entries): what the verification code covers.
    public var rosterBytes: [UInt8] {
        var out: [UInt8] = [UInt8(roster.count >> 8), UInt8(roster.count & 0xff)]
        for member in roster {
            out.append(UInt8(member.uid.utf8.count))
            out += Array(member.uid.utf8) + member.publicKey
        }
        return out
    }

    static func parseRoster(_ bytes: ArraySlice<UInt8>) throws(MeetingKeyMessageError) -> [Member] {
        var offset = bytes.startIndex
        let count = Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
        offset += 2
        var members: [Member] = []
        for _ in 0..<count {
            guard offset < bytes.endIndex else { throw .truncated }
            let length = Int(bytes[offset])
            guard length > 0 else { throw .emptyUid }
            let uidEnd = offset + 1 + length, end = uidEnd + MeetingKeyMessage.keyLength
            guard end <= bytes.endIndex else { throw .truncated }
            guard let uid = String(validating: bytes[offset + 1 ..< uidEnd], as: UTF8.self) else { throw .invalidUid }
            if let last = members.last, !last.uid.utf8.lexicographicallyPrecedes(uid.utf8) { throw .rosterNotSorted }
            members.append(Member(uid: uid, publicKey: Array(bytes[uidEnd ..< end])))
            offset = end
        }
        guard offset == bytes.endIndex else { throw .trailingBytes }
        return members
    }
}

/// Why a key-exchange message was refused (docs/e2ee.md, "E2EE meetings").
public enum MeetingKeyMessageError: Error, Equatable, Sendable {
    /// Fewer bytes than the message's fields need.
    case truncated
    /// A first byte that is not the format version 1.
    case unsupportedVersion(UInt8)
    /// A type byte other than 1 (announce) or 2 (sealed key).
    case unknownType(UInt8)
    /// Bytes after the last field.
    case trailingBytes
    /// A roster entry with a uid of length 0.
    case emptyUid
    /// A roster uid that is not UTF-8.
    case invalidUid
    /// Roster entries out of uid order, or a uid twice.
    case rosterNotSorted
}
