import Foundation

/// What an `Agent` hears and does, in `Agent.events`. Times (`…Ms`) are milliseconds since the
/// agent was made, on one clock for every participant.
public enum AgentEvent: Sendable, Equatable {
    /// A participant's audio track is being listened to.
    case participantJoined(uid: String)
    /// A participant left (or unpublished their audio); nothing more comes for them after this.
    case participantLeft(uid: String)
    /// Voice activity started (barge-in fires on this).
    case speechStarted(uid: String, atMs: Int)
    /// A voice-activity segment ended (a pause shorter than a turn's end may follow).
    case speechEnded(uid: String, startMs: Int, endMs: Int)
    /// Recognised text: partials while the participant speaks, then one final per turn with
    /// text (a turn with nothing recognised gives no final).
    case transcript(uid: String, Transcript)
    /// The participant's turn ended (`endOfTurnSilenceMs` of silence); `transcript` is its final
    /// result (empty text when nothing was recognised or no recognizer is configured).
    case turnEnded(uid: String, transcript: Transcript)
    /// The loudest current speaker changed (nil: nobody speaks).
    case activeSpeakerChanged(uid: String?)
    /// A data message arrived on the channel.
    case message(from: String?, topic: String?, data: Data)
    /// Something went wrong with one participant's audio or the engines; the agent goes on.
    case error(uid: String?, AgentError)
}

/// How a `say` ended.
public struct SpeechOutcome: Sendable, Equatable {
    /// The text given to `say`.
    public var text: String
    /// The words whose sound had started when playback stopped (all of them when completed).
    public var spokenText: String
    /// Whether all of it was played (false: cut by barge-in or `stopSpeaking`).
    public var completed: Bool
    /// Milliseconds of speech played.
    public var playedMs: Int
    /// The participant whose speech cut it, for a barge-in.
    public var interruptedBy: String?
    /// Agent clock (ms) when the cut was decided and when the last sound was pushed.
    public var cutAtMs: Int?
}
