/// A small JSON writer for the few objects built on hot paths (token claims, grant answers),
/// where Foundation's `JSONEncoder` costs more than everything else together. Output is compact
/// with keys in the order written; strings are escaped per RFC 8259 §7.
public struct JSONText {
    public private(set) var bytes: [UInt8] = []
    private var needsComma: [Bool] = []

    public init(capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    /// Opens an object (as a value, or as the member `key` of the enclosing object).
    public mutating func beginObject(_ key: String? = nil) {
        if let key { writeKey(key) } else { separate() }
        bytes.append(UInt8(ascii: "{"))
        needsComma.append(false)
    }

    public mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma.removeLast()
    }

    public mutating func field(_ key: String, _ value: String) {
        writeKey(key)
        writeString(value)
    }

    public mutating func field(_ key: String, _ value: String?) {
        guard let value else { return }
        field(key, value)
    }

    public mutating func field(_ key: String, _ value: Int64) {
        writeKey(key)
        bytes.append(contentsOf: String(value).utf8)
    }

    public mutating func field(_ key: String, _ value: Bool) {
        writeKey(key)
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    private mutating func separate() {
        guard !needsComma.isEmpty else { return }
        if needsComma[needsComma.count - 1] { bytes.append(UInt8(ascii: ",")) }
        needsComma[needsComma.count - 1] = true
    }

    private mutating func writeKey(_ key: String) {
        separate()
        writeString(key)
        bytes.append(UInt8(ascii: ":"))
    }

    private mutating func writeString(_ s: String) {
        bytes.append(UInt8(ascii: "\""))
        for c in s.utf8 {
            switch c {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [0x5c, 0x22])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [0x5c, 0x5c])
            case 0x0a: bytes.append(contentsOf: [0x5c, UInt8(ascii: "n")])
            case 0x0d: bytes.append(contentsOf: [0x5c, UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [0x5c, UInt8(ascii: "t")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [0x5c, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(c >> 4)], hex[Int(c & 15)]])
            default: bytes.append(c)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
