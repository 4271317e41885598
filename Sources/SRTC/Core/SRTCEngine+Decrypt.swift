import SRTCProtocol

/// `decrypt:` of the engine page: opens a string the app's backend sealed for this user
/// (docs/sealed-strings.md), with the key the server gave this process when the user joined a
/// channel or enabled IM.
///
/// ```swift
/// // The backend: POST /server/v1/seal {"uid": "alice", "value": "door code 4711"} → sealed,
/// // sent to Alice through any channel message, IM, push or URL.
/// let secret = SRTCEngine.decrypt(sealed)   // "door code 4711" in Alice's app, nil anywhere else
/// ```
extension SRTCEngine {
    /// The plaintext of a sealed string (`decrypt:`), or nil: for nil, for anything that is not a
    /// sealed string, for a string sealed for an app and uid that has not joined a channel or
    /// enabled IM in this process, and for one that fails authentication (changed, truncated, or
    /// sealed with another key).
    public static func decrypt(_ value: String?) -> String? {
        guard let value, let sealed = SealedString.parse(value),
              let key = SealKeyring.shared.key(appId: sealed.appId, uid: sealed.uid) else { return nil }
        return sealed.open(key: key)
    }
}
