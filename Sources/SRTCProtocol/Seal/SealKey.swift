import RTCCrypto

/// The key of one user's sealed strings (docs/sealed-strings.md): HKDF-SHA256 (RFC 5869) of the
/// app's key, bound to the app and the uid, so the key handed to one user's SDK opens that user's
/// strings only and tells nothing of `app_key` (HKDF is one-way).
public enum SealKey {
    /// HKDF's salt: the version of the scheme.
    public static let salt = Array("srtc-seal-v1".utf8)
    public static let length = AESGCM.keyLength

    /// `HKDF-SHA256(ikm = UTF-8(app_key), salt = "srtc-seal-v1", info = UTF-8(app_id) ‖ 0x00 ‖
    /// UTF-8(uid), L = 32)`. The 0x00 keeps ("ab", "c") and ("a", "bc") apart.
    public static func derive(appKey: String, appId: String, uid: String) -> [UInt8] {
        HKDF.sha256(ikm: Array(appKey.utf8), salt: salt, info: Array(appId.utf8) + [0] + Array(uid.utf8), length: length)
    }

    /// The key as the join and IM login responses carry it (`seal_key`): base64url, no padding.
    public static func encoded(appKey: String, appId: String, uid: String) -> String {
        Encoding.base64URL(derive(appKey: appKey, appId: appId, uid: uid))
    }
}
