/// `a=extmap:<id>[/<direction>] <uri> [<attributes>]` (RFC 8285 §8): binds a header
/// extension URI to a local id.
public struct ExtMap: Hashable, Sendable, CustomStringConvertible {
    /// Local id: 1–14 for the one-byte form, up to 255 for the two-byte form.
    public var id: UInt16
    /// Optional direction restriction.
    public var direction: Direction?
    /// The extension's URI (see `RTPHeaderExtensionURI`).
    public var uri: String
    /// Extension attributes, as written.
    public var attributes: String?

    public init(id: UInt16, uri: String, direction: Direction? = nil, attributes: String? = nil) {
        self.id = id
        self.uri = uri
        self.direction = direction
        self.attributes = attributes
    }

    static func parse(_ value: Substring) -> ExtMap? {
        let parts = SDPScanner.fields(value)
        guard parts.count >= 2 else { return nil }
        let (idText, directionText) = SDPScanner.splitOnce(parts[0], "/")
        guard let id = SDPScanner.number(idText, as: UInt16.self), (1 ... 4096).contains(id) else { return nil }
        var direction: Direction? = nil
        if let directionText {
            guard let parsed = Direction(rawValue: String(directionText)) else { return nil }
            direction = parsed
        }
        guard SDPScanner.isVisible(parts[1]) else { return nil }
        let attributes = parts.count > 2 ? parts[2...].joined(separator: " ") : nil
        return ExtMap(id: id, uri: String(parts[1]), direction: direction, attributes: attributes)
    }

    /// The attribute value.
    public var description: String {
        var text = "\(id)"
        if let direction { text += "/\(direction.rawValue)" }
        text += " \(uri)"
        if let attributes { text += " \(attributes)" }
        return text
    }
}
