/// Hex and base64url encodings used by signatures, fingerprints and JWTs.
public enum Encoding {
    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Lowercase hex of `bytes`.
    public static func hex<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        // Written straight into the string's storage: signatures are hexed on every request.
        String(unsafeUninitializedCapacity: bytes.count * 2) { out in
            var i = 0
            for b in bytes {
                out[i] = hexDigits[Int(b >> 4)]
                out[i + 1] = hexDigits[Int(b & 0x0f)]
                i += 2
            }
            return i
        }
    }

    /// Bytes of a hex string (either case), or `nil` when it is not even-length hex.
    public static func fromHex(_ text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(utf8.count / 2)
        var i = 0
        while i < utf8.count {
            guard let hi = nibble(utf8[i]), let lo = nibble(utf8[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    private static let base64Alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let base64URLAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Standard base64 with padding (RFC 4648 §4).
    public static func base64<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        encode64(Array(bytes), alphabet: base64Alphabet, pad: true)
    }

    /// base64url without padding (RFC 4648 §5), as JWTs use (RFC 7515 §2).
    public static func base64URL<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        encode64(Array(bytes), alphabet: base64URLAlphabet, pad: false)
    }

    /// Decodes base64url without padding; `nil` on any character outside the alphabet or a bad length.
    public static func fromBase64URL(_ text: String) -> [UInt8]? {
        decode64(Array(text.utf8), alphabet: base64URLAlphabet)
    }

    /// Decodes standard base64 (padding optional).
    public static func fromBase64(_ text: String) -> [UInt8]? {
        var utf8 = Array(text.utf8)
        while utf8.last == UInt8(ascii: "=") { utf8.removeLast() }
        return decode64(utf8, alphabet: base64Alphabet)
    }

    private static func encode64(_ bytes: [UInt8], alphabet: [UInt8], pad: Bool) -> String {
        String(unsafeUninitializedCapacity: (bytes.count + 2) / 3 * 4) { out in
            var o = 0
            func put(_ c: UInt8) { out[o] = c; o += 1 }
            var i = 0
            while i + 3 <= bytes.count {
                let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
                put(alphabet[Int(n >> 18 & 63)]); put(alphabet[Int(n >> 12 & 63)])
                put(alphabet[Int(n >> 6 & 63)]); put(alphabet[Int(n & 63)])
                i += 3
            }
            let rest = bytes.count - i
            if rest == 1 {
                let n = UInt32(bytes[i]) << 16
                put(alphabet[Int(n >> 18 & 63)]); put(alphabet[Int(n >> 12 & 63)])
                if pad { put(UInt8(ascii: "=")); put(UInt8(ascii: "=")) }
            } else if rest == 2 {
                let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8
                put(alphabet[Int(n >> 18 & 63)]); put(alphabet[Int(n >> 12 & 63)])
                put(alphabet[Int(n >> 6 & 63)])
                if pad { put(UInt8(ascii: "=")) }
            }
            return o
        }
    }

    private static func decode64(_ chars: [UInt8], alphabet: [UInt8]) -> [UInt8]? {
        var table = [UInt8](repeating: 0xff, count: 256)
        for (i, c) in alphabet.enumerated() { table[Int(c)] = UInt8(i) }
        guard chars.count % 4 != 1 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(chars.count * 3 / 4)
        var buffer: UInt32 = 0
        var bits = 0
        for c in chars {
            let v = table[Int(c)]
            guard v != 0xff else { return nil }
            buffer = buffer << 6 | UInt32(v)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
        }
        return out
    }
}
