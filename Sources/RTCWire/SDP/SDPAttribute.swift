/// An `a=` line this module does not model, kept so a rewrite reproduces it
/// (for example `a=rtcp:9 IN IP4 0.0.0.0` or `a=x-google-flag:conference`).
public struct SDPAttribute: Hashable, Sendable {
    /// Text before the first colon.
    public var name: String
    /// Text after the first colon; nil for a property attribute such as `a=rtcp-mux`.
    public var value: String?

    public init(name: String, value: String? = nil) {
        self.name = name
        self.value = value
    }

    /// The line without `a=`.
    var text: String { value.map { "\(name):\($0)" } ?? name }
}

/// A non-attribute line this module does not model (`i=`, `u=`, `e=`, `p=`, `b=`, `r=`, `z=`, `k=`),
/// kept in order and written back where RFC 8866 §5 places its type.
public struct SDPLine: Hashable, Sendable {
    /// The line's letter.
    public var type: Character
    /// Everything after `=`.
    public var value: String

    public init(type: Character, value: String) {
        self.type = type
        self.value = value
    }
}
