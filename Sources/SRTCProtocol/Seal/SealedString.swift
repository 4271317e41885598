import RTCCrypto

/// A string sealed for one user of one app (docs/sealed-strings.md): the app's backend (or the
/// server's `POST /server/v1/seal`) seals it, any untrusted path carries it, and only that user's
/// SDK opens it (`SRTCEngine.decrypt`).
///
/// `srtc1.<app_id>.<base64url(uid)>.<base64url(nonce ‖ ciphertext ‖ tag)>`: AES-256-GCM with the
/// user's `SealKey`, a random 12-byte nonce, a 16-byte tag, and the header (everything before the
/// last `.`) as additional data, so a box cannot be moved to another user or app. base64url is
/// RFC 4648 §5 without padding, and only its canonical form is accepted (unused bits zero), so
/// one box has one spelling. The app id may contain dots: the string is split from the right.
public struct SealedString: Equatable, Sendable {
    public static let prefix = "srtc1."
    /// The largest plaintext, in UTF-8 bytes.
    public static let maxPlaintextBytes = 65_536
    /// The largest app id, in UTF-8 bytes.
    public static let maxAppIdBytes = 256
    static let nonceLength = AESGCM.nonceLength
    static let minBoxLength = AESGCM.nonceLength + AESGCM.tagLength
    static let maxBoxLength = minBoxLength + maxPlaintextBytes
    /// The longest sealed string: longer input is refused before any decoding.
    public static let maxLength = prefix.utf8.count + maxAppIdBytes + 1 + base64Length(Identifier.maxLength) + 1 + base64Length(maxBoxLength)

    public let appId: String
    public let uid: String
    /// nonce ‖ ciphertext ‖ tag.
    public let box: [UInt8]

    /// `srtc1.<app_id>.<base64url(uid)>`: the additional data.
    public var header: String { Self.prefix + appId + "." + Encoding.base64URL(Array(uid.utf8)) }
    /// The string form.
    public var text: String { header + "." + Encoding.base64URL(box) }

    /// Seals `value` for `uid` of `appId` with that user's `key` (`SealKey.derive`).
    /// - Returns: nil when `value` exceeds `maxPlaintextBytes`, `uid` breaks the naming rules, or
    ///   `appId` is empty or longer than `maxAppIdBytes`.
    public static func seal(_ value: String, appId: String, uid: String, key: [UInt8],
                            nonce: [UInt8] = SecureRandom.bytes(AESGCM.nonceLength)) -> SealedString? {
        guard value.utf8.count <= maxPlaintextBytes, isValidAppId(appId), Identifier.isValid(uid), nonce.count == nonceLength else { return nil }
        let header = SealedString(appId: appId, uid: uid, box: []).header
        let sealed = AESGCM.seal(key: key, nonce: nonce, plaintext: Array(value.utf8), aad: Array(header.utf8))
        return SealedString(appId: appId, uid: uid, box: nonce + sealed)
    }

    /// Reads the string form; nil for anything else: a wrong prefix, a part missing or empty, a
    /// non-canonical base64url, a uid outside the naming rules, a box too short or too long.
    public static func parse(_ text: String) -> SealedString? {
        let bytes = Array(text.utf8)
        let prefix = Array(Self.prefix.utf8)
        guard bytes.count <= maxLength, bytes.count > prefix.count, bytes.starts(with: prefix),
              let last = bytes.lastIndex(of: UInt8(ascii: ".")), last >= prefix.count,
              let middle = bytes[..<last].lastIndex(of: UInt8(ascii: ".")), middle >= prefix.count else { return nil }
        let appIdBytes = bytes[prefix.count..<middle]
        guard let appId = String(validating: appIdBytes, as: UTF8.self), isValidAppId(appId),
              let uidBytes = canonicalBase64URL(bytes[(middle + 1)..<last]), let uid = String(validating: uidBytes, as: UTF8.self),
              Identifier.isValid(uid),
              let box = canonicalBase64URL(bytes[(last + 1)...]), (minBoxLength...maxBoxLength).contains(box.count) else { return nil }
        return SealedString(appId: appId, uid: uid, box: box)
    }

    /// The plaintext, or nil when `key` does not authenticate this box (another user's key, a
    /// changed byte) or the plaintext is not UTF-8.
    public func open(key: [UInt8]) -> String? {
        guard box.count >= Self.minBoxLength,
              let plaintext = AESGCM.open(key: key, nonce: Array(box.prefix(Self.nonceLength)), sealed: Array(box.dropFirst(Self.nonceLength)),
                                          aad: Array(header.utf8)) else { return nil }
        return String(validating: plaintext, as: UTF8.self)
    }

    /// The app id rule of sealed strings: 1 to `maxAppIdBytes` UTF-8 bytes without control characters.
    static func isValidAppId(_ appId: String) -> Bool {
        let count = appId.utf8.count
        return count > 0 && count <= maxAppIdBytes && !appId.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// Decodes base64url only if `chars` is the canonical encoding of what it decodes to.
    private static func canonicalBase64URL(_ chars: ArraySlice<UInt8>) -> [UInt8]? {
        guard !chars.isEmpty, let text = String(validating: chars, as: UTF8.self), let decoded = Encoding.fromBase64URL(text),
              Encoding.base64URL(decoded).utf8.elementsEqual(chars) else { return nil }
        return decoded
    }

    /// Characters of `count` bytes in base64url without padding.
    static func base64Length(_ count: Int) -> Int { (count * 4 + 2) / 3 }
}
