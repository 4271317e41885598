import RTCCrypto

/// `a=fingerprint:<hash> <hex pairs>` (RFC 8122 §5): the hash of the DTLS certificate the
/// peer must present.
public struct Fingerprint: Hashable, Sendable, CustomStringConvertible {
    /// Hash function name, lowercase (`sha-256`).
    public var algorithm: String
    /// The digest bytes.
    public var bytes: [UInt8]

    public init(algorithm: String = "sha-256", bytes: [UInt8]) {
        self.algorithm = algorithm.lowercased()
        self.bytes = bytes
    }

    /// Digest sizes of the hash names RFC 8122 lists; others are accepted at any size.
    static let digestSizes: [String: Int] = ["sha-1": 20, "sha-224": 28, "sha-256": 32, "sha-384": 48, "sha-512": 64]

    /// Parses the attribute value (`sha-256 AB:CD:…`).
    /// - Throws: `SDPError.invalidAttribute` when the value is not a hash name and colon-separated hex pairs.
    public init(parsing value: String) throws(SDPError) {
        guard let fingerprint = Self.parse(Substring(value)) else { throw .invalidAttribute(line: 0, name: "fingerprint") }
        self = fingerprint
    }

    static func parse(_ value: Substring) -> Fingerprint? {
        let parts = SDPScanner.fields(value)
        guard parts.count == 2, SDPScanner.isToken(parts[0]) else { return nil }
        var bytes: [UInt8] = []
        for pair in parts[1].split(separator: ":", omittingEmptySubsequences: false) {
            guard pair.utf8.count == 2, pair.allSatisfy(\.isHexDigit), let byte = UInt8(pair, radix: 16) else { return nil }
            bytes.append(byte)
        }
        let algorithm = parts[0].lowercased()
        if let size = digestSizes[algorithm], size != bytes.count { return nil }
        return Fingerprint(algorithm: algorithm, bytes: bytes)
    }

    /// The SHA-256 fingerprint of a DER certificate.
    public static func sha256(certificateDER: [UInt8]) -> Fingerprint {
        Fingerprint(algorithm: "sha-256", bytes: Digest.sha256(certificateDER))
    }

    /// Uppercase colon-separated hex, the form browsers write.
    public var hexValue: String {
        bytes.map { byte in
            let digits = String(byte, radix: 16, uppercase: true)
            return digits.count == 1 ? "0" + digits : digits
        }.joined(separator: ":")
    }

    /// The attribute value.
    public var description: String { "\(algorithm) \(hexValue)" }
}
