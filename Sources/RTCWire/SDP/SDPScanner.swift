// Small parsing helpers shared by the SDP types. Each returns nil on bad input; the caller
// turns that into an `SDPError` naming the line.

enum SDPScanner {
    /// Splits on runs of spaces and tabs.
    static func fields(_ text: Substring) -> [Substring] {
        text.split(whereSeparator: { $0 == " " || $0 == "\t" })
    }

    /// Splits at the first `separator`: ("a", "b c") for "a:b c"; nil second part when absent.
    static func splitOnce(_ text: Substring, _ separator: Character) -> (Substring, Substring?) {
        guard let index = text.firstIndex(of: separator) else { return (text, nil) }
        return (text[..<index], text[text.index(after: index)...])
    }

    /// A decimal number made only of ASCII digits (no sign, no spaces), within `T`'s range.
    static func number<T: FixedWidthInteger>(_ text: Substring, as type: T.Type = T.self) -> T? {
        guard !text.isEmpty, text.utf8.count <= 20, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return T(text, radix: 10)
    }

    /// RFC 8866 token characters (also used for ids like mid, rid, ufrag).
    static func isToken(_ text: Substring) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy(isTokenByte)
    }

    /// token-char = %x21 / %x23-27 / %x2A-2B / %x2D-2E / %x30-39 / %x41-5A / %x5E-7E (RFC 8866 §9).
    @inline(__always)
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x21, 0x23 ... 0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x30 ... 0x39, 0x41 ... 0x5A, 0x5E ... 0x7E: return true
        default: return false
        }
    }

    /// Visible ASCII without spaces (ufrag, pwd, foundation, addresses).
    static func isVisible(_ text: Substring) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { $0 >= 0x21 && $0 <= 0x7E }
    }

    /// ASCII letters and digits plus the bytes in `extra`.
    static func isAlphanumeric(_ text: Substring, extra: StaticString) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { byte in
            switch byte {
            case 0x30 ... 0x39, 0x41 ... 0x5A, 0x61 ... 0x7A: return true
            default:
                return extra.withUTF8Buffer { $0.contains(byte) }
            }
        }
    }
}
