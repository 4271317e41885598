import Foundation
import RTCCrypto
import Synchronization

/// Where end-to-end encryption's keys come from (docs/e2ee.md, "Keys"). The server never sees
/// them: they stay in the apps.
///
/// Each frame names its key in the SFrame key id: `kid = keyIndex << 40 | session`, where
/// `keyIndex` (0–255) says which of a sender's keys, and `session` is 40 random bits a sender picks
/// each time it starts sending under a key, so a sender that joins again never reuses a
/// (key, nonce) pair (RFC 9605 §4.4.1). SFrame derives the frame key and salt from the base key and
/// the whole key id (§4.4.2).
///
/// **Shared key** (`sharedKey(passphrase:)`): everyone is given one passphrase; each sender's
/// base key (key index 0) is derived from it and the sender's uid:
///
///     channel_secret = PBKDF2-HMAC-SHA256(passphrase, "SRTC E2EE shared key v1", 100000, 32)
///     base_key(uid)  = HKDF-SHA256(channel_secret, salt: "", info: "SRTC E2EE sender " + uid, 16)
///
/// **Per participant** (`perParticipant()`): the app gives each sender's keys by uid and index
/// (`setKey(_:for:index:)`), its own included, through its own channel to the members (the server
/// must not see them). A sender encrypts under the highest index it was given for itself; a newer
/// key for a uid retires its older ones after `ratchetWindow` seconds, so frames in flight still
/// decrypt while the new key spreads: give every remaining member a new key when someone leaves.
public final class E2EEKeyProvider: Sendable {
    /// PBKDF2's work factor for the passphrase (docs/e2ee.md; the web SDK uses the same).
    public static let passphraseIterations = 100_000
    static let passphraseSalt = Array("SRTC E2EE shared key v1".utf8)
    static let senderLabel = "SRTC E2EE sender "
    /// Bits of the key id below the key index.
    static let sessionBits: UInt64 = 40

    private enum Mode {
        case shared(secret: [UInt8])
        case perParticipant
    }

    private struct Key {
        var bytes: [UInt8]
        var retiredAt: Double?
    }

    private let mode: Mode
    /// Seconds an older key of a uid still decrypts after a newer one was set.
    public let ratchetWindow: Double
    private let keys = Mutex<[String: [Int: Key]]>([:])
    private let changes = Atomic<UInt64>(0)

    private init(mode: Mode, ratchetWindow: Double) {
        self.mode = mode
        self.ratchetWindow = ratchetWindow
    }

    /// Everyone who has `passphrase` can decrypt everyone else; nobody else can (the server
    /// included). Derivation takes a moment (PBKDF2): make the provider once, before joining.
    public static func sharedKey(passphrase: String) -> E2EEKeyProvider {
        E2EEKeyProvider(mode: .shared(secret: PBKDF2.sha256(password: Array(passphrase.utf8), salt: passphraseSalt,
                                                            iterations: passphraseIterations, length: 32)),
                        ratchetWindow: 0)
    }

    /// Keys the app gives per sender (`setKey(_:for:index:)`).
    /// - Parameter ratchetWindow: seconds an older key of a uid still decrypts after a newer one.
    public static func perParticipant(ratchetWindow: Double = 10) -> E2EEKeyProvider {
        E2EEKeyProvider(mode: .perParticipant, ratchetWindow: ratchetWindow)
    }

    /// Gives `uid`'s key number `index` (0–255; at least 16 random bytes). Setting a higher index
    /// than `uid` had ratchets: this client sends under it if `uid` is its own, and the older ones
    /// stop decrypting after `ratchetWindow`. Ignored for a shared-key provider.
    public func setKey(_ key: [UInt8], for uid: String, index: Int = 0) {
        guard case .perParticipant = mode, (0...255).contains(index), !key.isEmpty else { return }
        let now = Date().timeIntervalSince1970
        keys.withLock { keys in
            var mine = keys[uid] ?? [:]
            let newest = mine.keys.max() ?? -1
            if index > newest { for old in mine.keys where mine[old]?.retiredAt == nil { mine[old]?.retiredAt = now } }
            mine[index] = Key(bytes: key, retiredAt: index < newest ? now : nil)
            keys[uid] = mine
        }
        changes.add(1, ordering: .releasing)
    }

    /// Forgets every key of `uid` (a member who left): its frames no longer decrypt.
    public func removeKeys(for uid: String) {
        _ = keys.withLock { $0.removeValue(forKey: uid) }
        changes.add(1, ordering: .releasing)
    }

    /// Grows on every change: users of derived keys check it to drop what they derived.
    var generation: UInt64 { changes.load(ordering: .acquiring) }

    /// The index `uid` sends under: the highest it was given (0 with a shared key); nil without one.
    func currentIndex(for uid: String) -> Int? {
        switch mode {
        case .shared: return 0
        case .perParticipant: return keys.withLock { $0[uid]?.keys.max() }
        }
    }

    /// The base key of `uid`'s key number `index`, nil when this provider has none (or it retired
    /// more than `ratchetWindow` ago).
    func baseKey(for uid: String, index: Int = 0) -> [UInt8]? {
        switch mode {
        case .shared(let secret):
            guard index == 0 else { return nil }
            return HKDF.sha256(ikm: secret, salt: [], info: Array((Self.senderLabel + uid).utf8), length: 16)
        case .perParticipant:
            let now = Date().timeIntervalSince1970
            return keys.withLock { keys in
                guard let key = keys[uid]?[index] else { return nil }
                if let retired = key.retiredAt, now - retired > ratchetWindow { return nil }
                return key.bytes
            }
        }
    }

    /// A key id for a new sending session under key number `index`.
    static func newKeyID(index: Int) -> UInt64 {
        UInt64(index) << sessionBits | UInt64.random(in: 0 ..< 1 << sessionBits)
    }

    /// The key index a key id names.
    static func index(of keyID: UInt64) -> Int { Int(truncatingIfNeeded: keyID >> sessionBits) }
}

/// End-to-end encryption of a channel's media (`SRTCEngine.Configuration.e2ee`).
public struct E2EEConfiguration: Sendable {
    public var keyProvider: E2EEKeyProvider
    /// Whether what this engine publishes is encrypted too (the default). False makes a
    /// receive-only client, such as the server's trusted recorder: it decrypts what it receives
    /// and publishes in the clear (its tracks are not marked `e2ee`).
    public var encryptsOutgoing: Bool

    public init(keyProvider: E2EEKeyProvider, encryptsOutgoing: Bool = true) {
        self.keyProvider = keyProvider
        self.encryptsOutgoing = encryptsOutgoing
    }
}

/// What a receiver can do with one participant's encrypted media
/// (`ChannelDelegate.channel(_:e2eeStateChanged:state:)`).
public enum E2EEState: String, Sendable, Equatable {
    /// Frames decrypt.
    case ok
    /// No key for the frames' key id (the participant encrypts with a key this app was not given).
    case missingKey
    /// Frames do not authenticate: another key (another passphrase), or the frames are not encrypted.
    case decryptionFailed
    /// The participant moved to a newer key (told once; `ok` follows with the next frame).
    case keyRatcheted
    /// Data messages only (`DataDecryptionFailure.reason`): the message decrypts but its counter
    /// was accepted before, or is `SFrameReplayWindow.size` (1024) or more below the newest one
    /// accepted under its key id: a replay, or a reordering beyond the window (docs/e2ee.md).
    case replayed
}
