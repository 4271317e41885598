/// Errors of agents and their engines.
public enum AgentError: Error, Sendable, Equatable {
    /// The speech engine could not start (model files missing, library refused); says which and why.
    case engineUnavailable(String)
    /// The engine failed on input it was given; says which call.
    case engineFailed(String)
    /// The audio given is not usable (a rate or channel count out of range); says what.
    case badAudio(String)
    /// The agent is not in a channel (before `join`, or after `leave`).
    case notJoined
    /// Joining or publishing through the SDK failed; carries the SDK's description.
    case channel(String)
}
