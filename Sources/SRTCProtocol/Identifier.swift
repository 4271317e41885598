/// Rules for channel names and user ids (docs/server-api.md, "Naming rules"): 1–64 characters
/// from `A–Z a–z 0–9 _ - . @ = +`. Tight rules keep ids safe in URLs, logs, file names and SQL.
public enum Identifier {
    public static let maxLength = 64

    /// `true` when `value` is a valid channel name or user id.
    public static func isValid(_ value: String) -> Bool {
        let bytes = value.utf8
        guard !bytes.isEmpty, bytes.count <= maxLength else { return false }
        return bytes.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a)
                || c == UInt8(ascii: "_") || c == UInt8(ascii: "-") || c == UInt8(ascii: ".")
                || c == UInt8(ascii: "@") || c == UInt8(ascii: "=") || c == UInt8(ascii: "+")
        }
    }
}

/// Bounds of a token's lifetime (`expire_seconds` of the grant routes).
public enum TokenLifetime {
    public static let defaultSeconds: Int64 = 3600
    public static let minimumSeconds: Int64 = 60
    public static let maximumSeconds: Int64 = 7 * 86400
}
