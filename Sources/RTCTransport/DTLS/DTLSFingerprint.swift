import COpenSSL

/// A certificate fingerprint as SDP carries it (`a=fingerprint:sha-256 AB:CD:...`, RFC 8122 §5).
public struct DTLSFingerprint: Hashable, Sendable, CustomStringConvertible {
    /// Lowercase hash name as in SDP: `sha-256` (what we emit), `sha-1`, `sha-384`, `sha-512`.
    public let algorithm: String
    public let bytes: [UInt8]

    public init(algorithm: String, bytes: [UInt8]) {
        self.algorithm = algorithm.lowercased()
        self.bytes = bytes
    }

    /// Parses `sha-256 AB:CD:...` (the SDP attribute value without `a=fingerprint:`).
    public init(sdpValue: String) throws(DTLSError) {
        let parts = sdpValue.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 2 else { throw .badFingerprint(sdpValue) }
        let algorithm = parts[0].lowercased()
        guard Self.digest(algorithm) != nil else { throw .badFingerprint(sdpValue) }
        var bytes = [UInt8]()
        for pair in parts[1].split(separator: ":") {
            guard pair.count == 2, let byte = UInt8(pair, radix: 16) else { throw .badFingerprint(sdpValue) }
            bytes.append(byte)
        }
        guard !bytes.isEmpty else { throw .badFingerprint(sdpValue) }
        self.init(algorithm: algorithm, bytes: bytes)
    }

    /// Uppercase hex pairs joined by colons: `AB:CD:...`.
    public var hexString: String {
        bytes.map { b in
            let s = String(b, radix: 16, uppercase: true)
            return b < 16 ? "0" + s : s
        }.joined(separator: ":")
    }

    /// `sha-256 AB:CD:...`, the value of an SDP `a=fingerprint` line.
    public var sdpValue: String { "\(algorithm) \(hexString)" }

    public var description: String { sdpValue }

    /// The fingerprint of a DER certificate under `algorithm`, or `nil` for an unknown hash.
    static func of(certificate: OpaquePointer, algorithm: String) -> DTLSFingerprint? {
        guard let md = digest(algorithm) else { return nil }
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard X509_digest(certificate, md, &out, &length) == 1 else { return nil }
        return DTLSFingerprint(algorithm: algorithm, bytes: Array(out.prefix(Int(length))))
    }

    static func digest(_ algorithm: String) -> OpaquePointer? {
        switch algorithm.lowercased() {
        case "sha-1": return EVP_sha1()
        case "sha-256": return EVP_sha256()
        case "sha-384": return EVP_sha384()
        case "sha-512": return EVP_sha512()
        default: return nil
        }
    }
}
