/// Why a session description could not be read (RFC 8866, RFC 8829 JSEP).
public enum SDPError: Error, Sendable, Equatable {
    /// A line is not `<letter>=<value>` or holds control characters (line numbers count from 1).
    case malformedLine(line: Int)
    /// The description does not start with `v=0`.
    case unsupportedVersion
    /// A required session line (`o=`, `s=`, `t=`) is missing, named by its letter.
    case missingLine(String)
    /// A line's value does not follow its grammar (`o=`, `c=`, `t=`, `m=`), named by its letter.
    case invalidValue(line: Int, type: String)
    /// An attribute's value does not follow its grammar, or a single-valued attribute repeats.
    case invalidAttribute(line: Int, name: String)
}
