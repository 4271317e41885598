import RTCCrypto
import SRTCProtocol
import Synchronization

/// The seal keys this process was given, by app and uid: the server hands a client its own uid's
/// key in the `joined` answer of a channel and in the IM login answer (`seal_key`), and
/// `SRTCEngine.decrypt(_:)` opens the strings sealed for it (docs/sealed-strings.md).
/// Process-wide, as `decrypt` is a static method; kept until the process ends (a key opens only
/// that user's strings, and the app may decrypt after leaving).
final class SealKeyring: Sendable {
    static let shared = SealKeyring()

    private struct Owner: Hashable {
        let appId: String
        let uid: String
    }

    private let keys = Mutex<[Owner: [UInt8]]>([:])

    /// Keeps `encodedKey` (base64url, 32 bytes) for `uid` of the app that issued `token` (its
    /// `iss`). Nothing is kept when the server sent no key or the key or token is malformed.
    func remember(encodedKey: String?, uid: String, token: String) {
        guard let encodedKey, let key = Encoding.fromBase64URL(encodedKey), key.count == SealKey.length,
              let appId = try? AccessToken.decodeUnverified(token).iss else { return }
        keys.withLock { $0[Owner(appId: appId, uid: uid)] = key }
    }

    /// The key of `uid` of `appId`, if this process was given it.
    func key(appId: String, uid: String) -> [UInt8]? {
        keys.withLock { $0[Owner(appId: appId, uid: uid)] }
    }
}
