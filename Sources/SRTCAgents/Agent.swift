import Dispatch
import Foundation
import RTCMedia
import SRTC
import Synchronization

/// A program that joins a channel, hears each participant and speaks or writes back
/// (docs/agents.md).
///
/// ```swift
/// let agent = try Agent(configuration: .init(speechToText: PocketSphinxSpeechToText(),
///                                            textToSpeech: ESpeakTextToSpeech()))
/// try await agent.join(url: url, token: token)       // a token for the agent's own uid
/// for await event in agent.events {
///     if case .turnEnded(let uid, let transcript) = event, !transcript.text.isEmpty {
///         _ = try await agent.say("\(uid) said \(transcript.text)")
///     }
/// }
/// ```
///
/// Each participant's audio track is subscribed as it appears, decoded (48 kHz Opus),
/// converted to 16 kHz mono, cut into 20 ms frames for voice activity and turn detection and
/// fed to the speech-to-text engine on a thread of its own. Events come in `events`, in order per
/// participant.
public final class Agent: ChannelDelegate, Sendable {
    /// The topic of `send(_:to:)`'s data messages (docs/agents.md).
    public static let textTopic = "agent.text"

    /// What the agent runs with.
    public struct Configuration: Sendable {
        /// The recognizer engine; nil: voice activity and turns only, no transcripts.
        public var speechToText: (any SpeechToText)?
        /// The voice; nil: `say` throws.
        public var textToSpeech: (any TextToSpeech)?
        /// Voice activity and end of turn (`endOfTurnSilenceMs`).
        public var voiceActivity = VoiceActivityDetector.Settings()
        /// How often a partial transcript is asked for while someone speaks.
        public var partialIntervalMs = 500
        /// Whether someone starting to speak stops the agent's speech.
        public var bargeIn = true
        /// The description of the agent's microphone track.
        public var microphoneDesc = "mic"
        /// The SDK's log level.
        public var logLevel: LogLevel = .warning
        /// The local address media binds to ("0.0.0.0": any).
        public var mediaBindAddress = "0.0.0.0"
        /// A PEM file of CAs trusted for an https:// server instead of the system's.
        public var trustedCAFile: String?

        public init(speechToText: (any SpeechToText)? = nil, textToSpeech: (any TextToSpeech)? = nil) {
            self.speechToText = speechToText
            self.textToSpeech = textToSpeech
        }
    }

    public let configuration: Configuration
    /// Everything the agent hears and does. Iterate it once.
    public let events: AsyncStream<AgentEvent>
    /// The SDK engine of this agent (its own, outside the one-engine-per-process rule, so a
    /// process can run several agents).
    public let engine: SRTCEngine
    /// The SDK channel the agent is in.
    public let channel: Channel

    private let continuation: AsyncStream<AgentEvent>.Continuation
    private let start = DispatchTime.now().uptimeNanoseconds
    private let state = Mutex(State())
    /// One recognizer loaded ahead, so a new participant's first turn does not wait for a model.
    private let spare = Mutex<SpareRecognizer?>(nil)

    /// A recognizer handed from the thread that loaded it to the participant's worker.
    // @unchecked Sendable: the recognizer is handed over once (through `spare`, a Mutex) from the thread that loaded it to one worker, which alone uses it after.
    private final class SpareRecognizer: @unchecked Sendable {
        let recognizer: any SpeechRecognizer
        init(_ recognizer: any SpeechRecognizer) { self.recognizer = recognizer }
    }

    private struct State {
        var listeners: [String: ParticipantListener] = [:]  // by track id
        var player: SpeechPlayer?
        /// Who is speaking, with when they started (the latest starter is the active speaker).
        var speaking: [String: Int] = [:]
        var activeSpeaker: String?
        var joined = false
    }

    /// - Throws: nothing today; kept so an engine check can be added without breaking callers.
    public init(configuration: Configuration) throws(AgentError) {
        self.configuration = configuration
        let (stream, continuation) = AsyncStream.makeStream(of: AgentEvent.self)
        events = stream
        self.continuation = continuation
        let sdk = SRTCEngine.Configuration(delegateQueue: DispatchQueue(label: "srtc.agent.events"), logLevel: configuration.logLevel,
                                           mediaBindAddress: configuration.mediaBindAddress, trustedCAFile: configuration.trustedCAFile)
        engine = SRTCEngine(independent: sdk)
        do { channel = try engine.createChannel() } catch { throw .channel("\(error)") }
        channel.delegates.add(delegate: self)
    }

    // MARK: - Public API

    /// Milliseconds since the agent was made: the clock of every event's times.
    public var clockMs: Int { Int((DispatchTime.now().uptimeNanoseconds - start) / 1_000_000) }

    /// The agent's uid once joined.
    public var uid: String? { channel.uid }

    /// The participant who started speaking last among those speaking now.
    public var activeSpeaker: String? { state.withLock { $0.activeSpeaker } }

    /// Whether the agent is speaking now.
    public var isSpeaking: Bool { state.withLock { $0.player }?.isPlaying ?? false }

    /// Joins with the agent's own token and, when a voice is configured, publishes its
    /// microphone track. Participants' audio is heard from then on, those already there included.
    /// A recognizer is loaded first (and another one each time one is taken), so no participant's
    /// first turn waits for a model.
    /// - Throws: `AgentError.engineUnavailable` when the recognizer cannot load;
    ///   `AgentError.channel` when joining or publishing fails.
    public func join(url: String, token: String, nickname: String? = nil) async throws(AgentError) {
        // The first participant's recognizer is ready before anyone is heard.
        if let speechToText = configuration.speechToText, spare.withLock({ $0 == nil }) {
            do {
                let box = try await Self.offPool { SpareRecognizer(try speechToText.makeRecognizer()) }
                spare.withLock { $0 = box }
            } catch {
                throw error as? AgentError ?? .engineUnavailable("\(error)")
            }
        }
        do {
            _ = try await channel.join(url: url, token: token, nickname: nickname)
            if configuration.textToSpeech != nil {
                let track = engine.createLocalCustomAudioTrack(desc: configuration.microphoneDesc)
                try await channel.publishLocalTrack(track)
                let player = SpeechPlayer(track: track) { [start] in Int((DispatchTime.now().uptimeNanoseconds - start) / 1_000_000) }
                state.withLock { $0.player = player }
            }
            state.withLock { $0.joined = true }
        } catch {
            throw .channel("\(error)")
        }
    }

    /// Stops listening (each participant's turn is finalised), leaves and ends `events`.
    public func leave() async {
        state.withLock { $0.player }?.interrupt(by: nil)
        let listeners = state.withLock { s -> [ParticipantListener] in
            defer { s.listeners = [:]; s.joined = false }
            return Array(s.listeners.values)
        }
        for listener in listeners { listener.close() }
        await channel.leave()
        await engine.destroy()
        continuation.finish()
    }

    /// Speaks `text` on the agent's microphone track and returns when it was all played, or
    /// cut: by someone starting to speak (barge-in, when on), by `stopSpeaking`, or by another
    /// `say`. The outcome says which words had been heard.
    /// - Throws: `AgentError.notJoined` without a microphone track (not joined, or no voice
    ///   configured); the engine's error when synthesis fails.
    public func say(_ text: String) async throws -> SpeechOutcome {
        guard let player = state.withLock({ $0.player }), let tts = configuration.textToSpeech else { throw AgentError.notJoined }
        let speech = try await Self.offPool { try tts.synthesize(text) }
        let pcm48k = try await Self.offPool { () throws -> [Int16] in
            let converter = PCMConverter(outputRate: 48_000)
            var out: [Int16] = []
            out.reserveCapacity(speech.samples.count * 48_000 / max(1, speech.sampleRate) + 1_024)
            try speech.samples.withUnsafeBufferPointer { samples in
                try converter.convert(int16: samples, rate: speech.sampleRate) { out.append(contentsOf: $0) }
                // Flush the filter's delay with a little silence.
                let flush = [Int16](repeating: 0, count: speech.sampleRate / 50)
                try flush.withUnsafeBufferPointer { try converter.convert(int16: $0, rate: speech.sampleRate) { out.append(contentsOf: $0) } }
            }
            return out
        }
        return await player.play(speech, text: text, pcm48k: pcm48k)
    }

    /// Stops the agent's speech now.
    public func stopSpeaking() {
        state.withLock { $0.player }?.interrupt(by: nil)
    }

    /// Sends `text` (UTF-8) on topic `Agent.textTopic` to `uid`, or to everyone when nil.
    /// - Throws: `AgentError.channel` when the data channel refuses it (too large, not open).
    public func send(_ text: String, to uid: String? = nil, topic: String? = Agent.textTopic) throws(AgentError) {
        do { try channel.publishData(Data(text.utf8), reliable: true, to: uid.map { [$0] }, topic: topic) } catch {
            throw .channel("\(error)")
        }
    }

    // MARK: - ChannelDelegate

    public func channel(_ channel: Channel, user: UserInfo, didAddTrack track: TrackInfo) {
        guard track.kind == .audio, let remote = channel.remoteTrack(trackId: track.id) as? RemoteAudioTrack else { return }
        let listener = ParticipantListener(uid: user.uid, host: host, settings: configuration.voiceActivity,
                                           partialIntervalMs: configuration.partialIntervalMs, speechToText: configuration.speechToText)
        let replaced = state.withLock { s -> ParticipantListener? in
            defer { s.listeners[track.id] = listener }
            return s.listeners[track.id]
        }
        replaced?.close()
        remote.add(audioRenderer: listener)
        emit(.participantJoined(uid: user.uid))
        Task {
            do { try await channel.subscribe(remote) } catch { self.emit(.error(uid: user.uid, .channel("subscribing: \(error)"))) }
        }
    }

    public func channel(_ channel: Channel, user: UserInfo, didRemoveTrack track: TrackInfo) {
        stopListening(trackIds: [track.id])
    }

    public func channel(_ channel: Channel, userDidLeave uid: String, reason: DisconnectReason) {
        stopListening(trackIds: state.withLock { s in s.listeners.filter { $0.value.uid == uid }.map(\.key) })
    }

    public func channel(_ channel: Channel, didReceiveData message: DataMessage) {
        emit(.message(from: message.from, topic: message.topic, data: message.data))
    }

    // MARK: - Internals

    private var host: ParticipantListener.Host {
        let start = self.start
        return ParticipantListener.Host(
            clockMs: { Int((DispatchTime.now().uptimeNanoseconds - start) / 1_000_000) },
            emit: { [weak self] in self?.emit($0) },
            voiceChanged: { [weak self] uid, speaking in self?.voiceChanged(uid: uid, speaking: speaking) },
            takeRecognizer: { [weak self] in self?.takeSpareRecognizer() })
    }

    /// Loads a recognizer in the background when none is waiting.
    private func loadSpareRecognizer() {
        guard let speechToText = configuration.speechToText else { return }
        DispatchQueue.global().async { [weak self] in
            guard let self, self.spare.withLock({ $0 == nil }), let recognizer = try? speechToText.makeRecognizer() else { return }
            let box = SpareRecognizer(recognizer)
            self.spare.withLock { if $0 == nil { $0 = box } }
        }
    }

    private func takeSpareRecognizer() -> (any SpeechRecognizer)? {
        guard let box = spare.withLock({ s -> SpareRecognizer? in defer { s = nil }; return s }) else { return nil }
        loadSpareRecognizer()
        return box.recognizer
    }

    private func emit(_ event: AgentEvent) {
        continuation.yield(event)
    }

    /// Barge-in and the active speaker, on voice-activity transitions (never per frame).
    private func voiceChanged(uid: String, speaking: Bool) {
        let now = clockMs
        let (player, changed) = state.withLock { s -> (SpeechPlayer?, String??) in
            if speaking { s.speaking[uid] = s.speaking[uid] ?? now } else { s.speaking[uid] = nil }
            let active = s.speaking.max { $0.value < $1.value }?.key
            let changed: String?? = active != s.activeSpeaker ? .some(active) : .none
            s.activeSpeaker = active
            return (s.player, changed)
        }
        if speaking && configuration.bargeIn { player?.interrupt(by: uid) }
        if let changed { emit(.activeSpeakerChanged(uid: changed)) }
    }

    private func stopListening(trackIds: [String]) {
        let listeners = state.withLock { s in trackIds.compactMap { s.listeners.removeValue(forKey: $0) } }
        guard !listeners.isEmpty else { return }
        // Closing waits for the worker to finalise the turn: off the SDK's event queue.
        DispatchQueue.global().async {
            for listener in listeners { listener.close() }
        }
    }

    private static func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
        }
    }
}
