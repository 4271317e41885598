import Foundation

/// The two example agents of `srtc agent` (docs/agents.md): short enough to read as the
/// template for your own.
public enum AgentExamples {
    /// The topic captions are sent on, one JSON object per message:
    /// `{"uid", "text", "final", "start_ms", "end_ms"}` (docs/agents.md).
    public static let captionTopic = "caption"

    /// Repeats, as speech, what each participant said when their turn ends; someone speaking
    /// cuts it short (barge-in). Runs until the agent leaves.
    /// - Parameters:
    ///   - onEvent: sees every event first (to print them).
    ///   - onSpoken: how each reply ended.
    public static func echo(_ agent: Agent, onEvent: @Sendable (AgentEvent) -> Void = { _ in },
                            onSpoken: @escaping @Sendable (SpeechOutcome) -> Void = { _ in }) async {
        for await event in agent.events {
            onEvent(event)
            guard case .turnEnded(_, let transcript) = event, !transcript.text.isEmpty else { continue }
            // Speak from a task of its own: the events (a barge-in among them) keep flowing.
            Task {
                if let outcome = try? await agent.say(transcript.text) { onSpoken(outcome) }
            }
        }
    }

    /// Captions: every transcript (partials and finals) goes to everyone in the channel as a
    /// `caption` data message. Runs until the agent leaves.
    public static func captions(_ agent: Agent, onEvent: @Sendable (AgentEvent) -> Void = { _ in }) async {
        for await event in agent.events {
            onEvent(event)
            guard case .transcript(let uid, let transcript) = event else { continue }
            try? agent.send(captionJSON(uid: uid, transcript), topic: captionTopic)
        }
    }

    /// The caption message of `transcript` spoken by `uid`.
    public static func captionJSON(uid: String, _ transcript: Transcript) -> String {
        let object: [String: Any] = ["uid": uid, "text": transcript.text, "final": transcript.final,
                                     "start_ms": transcript.startMs, "end_ms": transcript.endMs]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
