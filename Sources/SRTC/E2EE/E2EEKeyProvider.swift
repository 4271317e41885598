import Foundation
import RTCCrypto

/// Where end-to-end encryption's keys come from (docs/e2ee.md, "Keys"). The server never sees
/// them: they stay in the apps.
///
/// **Shared key.** Everyone in the channel is given one passphrase by the app. Each sender's key
/// is derived from it and the sender's uid, so no two senders encrypt under one key (RFC 9605
/// §4.4.1), and each publishing session picks a random key id, so a sender who joins again never
/// reuses a (key, nonce) pair:
///
///     channel_secret = PBKDF2-HMAC-SHA256(passphrase, "SRTC E2EE shared key v1", 100000, 32)
///     base_key(uid)  = HKDF-SHA256(channel_secret, salt: "", info: "SRTC E2EE sender " + uid, 16)
///
/// and SFrame derives the frame key and salt from `base_key` and the key id (RFC 9605 §4.4.2).
public final class E2EEKeyProvider: Sendable {
    /// PBKDF2's work factor for the passphrase (docs/e2ee.md; the web SDK uses the same).
    public static let passphraseIterations = 100_000
    static let passphraseSalt = Array("SRTC E2EE shared key v1".utf8)
    static let senderLabel = "SRTC E2EE sender "

    private let channelSecret: [UInt8]

    private init(channelSecret: [UInt8]) {
        self.channelSecret = channelSecret
    }

    /// Everyone who has `passphrase` can decrypt everyone else; nobody else can (the server
    /// included). Derivation takes a moment (PBKDF2): make the provider once, before joining.
    public static func sharedKey(passphrase: String) -> E2EEKeyProvider {
        E2EEKeyProvider(channelSecret: PBKDF2.sha256(password: Array(passphrase.utf8), salt: passphraseSalt,
                                                     iterations: passphraseIterations, length: 32))
    }

    /// The base key the sender `uid` encrypts under (and receivers decrypt its frames with).
    func baseKey(for uid: String) -> [UInt8] {
        HKDF.sha256(ikm: channelSecret, salt: [], info: Array((Self.senderLabel + uid).utf8), length: 16)
    }
}

/// End-to-end encryption of a channel's media (`SRTCEngine.Configuration.e2ee`).
public struct E2EEConfiguration: Sendable {
    public var keyProvider: E2EEKeyProvider

    public init(keyProvider: E2EEKeyProvider) {
        self.keyProvider = keyProvider
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
}
