/// Why a configuration was refused; the server prints the text and exits with status 2.
public enum ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A flag no setting has.
    case unknownFlag(String)
    /// A flag without its value.
    case missingValue(String)
    /// A bare word where a flag was expected.
    case unexpectedArgument(String)
    /// A value of the wrong form.
    case invalidValue(String, String)
    /// A config file key no setting has.
    case unknownKey(String)
    /// The config file cannot be read.
    case unreadableFile(String)
    /// The config file is not a JSON object of strings and numbers.
    case invalidFile(String)
    /// Only one of app id and app key was given.
    case appCredentialsIncomplete
    /// Only one of the TLS certificate and key was given.
    case tlsIncomplete
    /// A redirect port without TLS to redirect to.
    case redirectWithoutTLS

    public var description: String {
        switch self {
        case .unknownFlag(let f): return "unknown flag --\(f) (see --help)"
        case .missingValue(let f): return "flag --\(f) needs a value"
        case .unexpectedArgument(let a): return "unexpected argument '\(a)' (flags are --name value)"
        case .invalidValue(let name, let value): return "invalid value '\(value)' for \(name)"
        case .unknownKey(let k): return "unknown key '\(k)' in config file"
        case .unreadableFile(let p): return "cannot read config file \(p)"
        case .invalidFile(let p): return "config file \(p) is not a JSON object"
        case .appCredentialsIncomplete: return "set both SRTC_APP_ID and SRTC_APP_KEY (or neither)"
        case .tlsIncomplete: return "set both --tls-cert and --tls-key (SRTC_TLS_CERT, SRTC_TLS_KEY) or neither"
        case .redirectWithoutTLS: return "--http-redirect-port needs TLS on (--tls-cert and --tls-key)"
        }
    }
}
