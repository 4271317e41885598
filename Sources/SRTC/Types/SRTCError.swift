import SRTCProtocol

/// The errors SDK calls throw. `code` is stable: server-side refusals keep the server's code
/// (docs/server-api.md, 4xxxx/5xxxx); the SDK's own causes use 1xxx.
public enum SRTCError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server URL cannot be used (scheme, host or port).
    case invalidURL(String)
    /// The call needs a joined channel.
    case notJoined
    /// The call is not valid now (already joined, joining twice, track already published...).
    case wrongState(String)
    /// The engine was destroyed; create a new one.
    case engineDestroyed
    /// The signaling connection could not be opened or was lost during the call.
    case connectionFailed(String)
    /// No answer in time.
    case timeout(String)
    /// The server refused the request; `code` is its error code.
    case server(code: Int, message: String)
    /// The media path could not be set up (SDP, ICE, DTLS, codecs).
    case mediaFailed(String)
    /// The session ended while the call was under way.
    case disconnected(DisconnectReason)
    /// The documentation's `RTCEngineErrorConflict`: the call clashes with the current state
    /// (a component installed twice, or enabled before it is installed; a speed test while
    /// another runs or while in a channel).
    case conflict(String)
    /// The documentation's `RTCEngineErrorNotFound`: a file or device the call names does not exist.
    case notFound(String)
    /// The documentation's `RTCEngineErrorSystemError`: the system refused (a model that cannot be
    /// loaded, a device that cannot be opened, a sound or display server that cannot be reached).
    case systemError(String)

    /// A numeric code: the server's for `.server`, 1001... for the SDK's own causes.
    public var code: Int {
        switch self {
        case .invalidURL: 1001
        case .notJoined: 1002
        case .wrongState: 1003
        case .engineDestroyed: 1004
        case .connectionFailed: 1005
        case .timeout: 1006
        case .server(let code, _): code
        case .mediaFailed: 1007
        case .disconnected: 1008
        case .conflict: 1009
        case .notFound: 1010
        case .systemError: 1011
        }
    }

    /// The server's code as the protocol names it, for `.server` errors.
    public var serverCode: APIErrorCode? {
        if case .server(let code, _) = self { return APIErrorCode(rawValue: code) }
        return nil
    }

    public var description: String {
        switch self {
        case .invalidURL(let url): "invalid server URL '\(url)'"
        case .notJoined: "the channel is not joined"
        case .wrongState(let why): "not allowed now: \(why)"
        case .engineDestroyed: "the engine was destroyed"
        case .connectionFailed(let why): "connection failed: \(why)"
        case .timeout(let what): "timed out: \(what)"
        case .server(let code, let message): "server refused (\(code)): \(message)"
        case .mediaFailed(let why): "media failed: \(why)"
        case .disconnected(let reason): "disconnected: \(reason.rawValue)"
        case .conflict(let why): "conflict: \(why)"
        case .notFound(let what): "not found: \(what)"
        case .systemError(let why): "system error: \(why)"
        }
    }

    init(_ error: SignalError) {
        self = .server(code: error.code, message: error.message)
    }
}
