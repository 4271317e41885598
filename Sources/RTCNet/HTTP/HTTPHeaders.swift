/// HTTP header fields in arrival order, looked up case-insensitively (RFC 9110 §5.1).
public struct HTTPHeaders: Sendable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    public private(set) var fields: [(name: String, value: String)] = []

    public init() {}

    public init(_ fields: [(String, String)]) {
        for (name, value) in fields { add(name: name, value: value) }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        for (name, value) in elements { add(name: name, value: value) }
    }

    /// Appends a field, keeping any earlier one of the same name.
    public mutating func add(name: String, value: String) {
        fields.append((name, value))
    }

    /// Replaces every field named `name` with one field.
    public mutating func replaceOrAdd(name: String, value: String) {
        remove(name: name)
        fields.append((name, value))
    }

    /// Removes every field named `name`.
    public mutating func remove(name: String) {
        fields.removeAll { Self.equalsIgnoringCase($0.name, name) }
    }

    /// The first value of `name`, or `nil`.
    public subscript(name: String) -> String? {
        fields.first { Self.equalsIgnoringCase($0.name, name) }?.value
    }

    /// Every value of `name`, in order.
    public func values(_ name: String) -> [String] {
        fields.filter { Self.equalsIgnoringCase($0.name, name) }.map(\.value)
    }

    /// `true` when a comma-separated field `name` contains `token` (case-insensitive), as for
    /// `Connection: keep-alive, Upgrade`.
    public func contains(_ name: String, token: String) -> Bool {
        values(name).contains { value in
            value.split(separator: ",").contains { Self.equalsIgnoringCase($0.trimmingSpaces, token) }
        }
    }

    public var count: Int { fields.count }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.makeIterator()
    }

    public var description: String {
        fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
    }

    static func equalsIgnoringCase<A: StringProtocol, B: StringProtocol>(_ a: A, _ b: B) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        for (x, y) in zip(a.utf8, b.utf8) where asciiLower(x) != asciiLower(y) { return false }
        return true
    }

    @inline(__always) static func asciiLower(_ c: UInt8) -> UInt8 {
        (c >= 65 && c <= 90) ? c + 32 : c
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs (HTTP's optional whitespace).
    var trimmingSpaces: Substring {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return s
    }
}
