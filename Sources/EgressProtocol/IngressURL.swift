/// The URLs an ingress deals in (docs/ingress.md): a pull URL from an API caller, checked before
/// libavformat sees it, and the stream keys the server makes. Pure, so the fuzzer runs it
/// (`fuzz/FuzzIngressURL.swift`).
public struct IngressURL: Sendable, Equatable {
    /// Why a URL or key was refused.
    public enum ParseError: Error, Sendable, Equatable {
        /// Over `maxBytes`, or empty.
        case badLength
        /// A space, control character or non-ASCII byte: libavformat would read it as something else.
        case forbiddenCharacter
        /// No `scheme://`, or a scheme an ingress does not pull (`file:`, `concat:`, … read the server's own files).
        case unsupportedScheme(String)
        /// No host, or a port that is not 1…65535.
        case badAuthority
    }

    /// Schemes an ingress pulls from: HLS or MP4 over HTTP(S), a live RTMP stream, an SRT caller.
    public static let pullSchemes: Set<String> = ["http", "https", "rtmp", "rtmps", "srt"]
    public static let maxBytes = 2048

    public var scheme: String
    public var host: String
    public var port: Int?
    /// Everything after the authority (`/live/abc?x=1`), possibly empty.
    public var rest: String

    /// Parses `text` as a pull URL: `scheme://host[:port][/path][?query]`, IPv6 hosts in brackets.
    public init(pull text: String) throws(ParseError) {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count <= Self.maxBytes else { throw .badLength }
        guard bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { throw .forbiddenCharacter }
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0,
              bytes.count >= colon + 3, bytes[colon + 1] == UInt8(ascii: "/"), bytes[colon + 2] == UInt8(ascii: "/") else {
            throw .unsupportedScheme("")
        }
        let scheme = String(decoding: bytes[..<colon], as: UTF8.self).lowercased()
        guard Self.pullSchemes.contains(scheme) else { throw .unsupportedScheme(scheme) }
        let authorityStart = colon + 3
        let authorityEnd = bytes[authorityStart...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.count
        var authority = bytes[authorityStart..<authorityEnd]
        // Credentials (`user:pass@`) may precede the host.
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) { authority = authority[(at + 1)...] }
        var host: ArraySlice<UInt8>
        var portText: ArraySlice<UInt8>?
        if authority.first == UInt8(ascii: "[") {
            guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else { throw .badAuthority }
            host = authority[authority.startIndex...close]
            let after = authority[(close + 1)...]
            if !after.isEmpty {
                guard after.first == UInt8(ascii: ":") else { throw .badAuthority }
                portText = after.dropFirst()
            }
        } else if let c = authority.firstIndex(of: UInt8(ascii: ":")) {
            host = authority[..<c]
            portText = authority[(c + 1)...]
        } else {
            host = authority
        }
        guard !host.isEmpty, host.allSatisfy({ $0 != UInt8(ascii: ":") || authority.first == UInt8(ascii: "[") }) else { throw .badAuthority }
        var port: Int?
        if let portText {
            guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                  let p = Int(String(decoding: portText, as: UTF8.self)), (1...65_535).contains(p) else { throw .badAuthority }
            port = p
        }
        self.scheme = scheme
        self.host = String(decoding: host, as: UTF8.self)
        self.port = port
        self.rest = String(decoding: bytes[authorityEnd...], as: UTF8.self)
    }

    // MARK: - Stream keys

    /// Characters of a stream key: URL- and SRT-passphrase-safe, no look-alikes (0/O, 1/l/I).
    public static let keyAlphabet = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"
    /// Length of the keys the server makes (an SRT passphrase takes 10…79 characters).
    public static let keyLength = 24

    /// Whether `key` could be one of the server's stream keys (checked before comparing).
    public static func isValidStreamKey(_ key: String) -> Bool {
        key.utf8.count == keyLength && key.utf8.allSatisfy(keyAlphabet.utf8.contains)
    }
}
