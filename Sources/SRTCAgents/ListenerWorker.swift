/// The worker side of a `ParticipantListener`: voice activity, turns, a pre-roll of the audio
/// just before speech started (so the recognizer hears a word's onset) and the recognizer, frame
/// by frame. Every frame is either fed to the recognizer or skipped, so the recognizer's clock
/// and the stream's stay equal; `baseMs` maps both onto the agent's clock.
struct ListenerWorker {
    static let frameMs = 20
    /// Frames kept before speech starts (280 ms).
    static let prerollFrames = 14

    let uid: String
    let host: ParticipantListener.Host
    var vad: VoiceActivityDetector
    let recognizer: (any SpeechRecognizer)?
    let partialIntervalMs: Int
    /// Agent time of the stream's first frame.
    var baseMs: Int
    /// Agent time up to which audio (or a gap) was processed.
    private(set) var lastProcessedMs: Int
    private var frames = 0
    private var started = false
    private var utteranceOpen = false
    private var segmentStartMs = 0
    private var turnStartMs = 0
    private var lastPartialAtMs = 0
    private var lastPartial = ""
    private let preroll: UnsafeMutablePointer<Int16>
    private var prerollCount = 0
    private var prerollHead = 0

    init(uid: String, host: ParticipantListener.Host, vad: VoiceActivityDetector, recognizer: (any SpeechRecognizer)?,
         partialIntervalMs: Int, baseMs: Int) {
        self.uid = uid
        self.host = host
        self.vad = vad
        self.recognizer = recognizer
        self.partialIntervalMs = partialIntervalMs
        self.baseMs = baseMs
        lastProcessedMs = baseMs
        preroll = .allocate(capacity: Self.prerollFrames * FrameRing.frameSamples)
    }

    /// The stream's time at the end of the frames processed, on the agent's clock.
    private var nowMs: Int { baseMs + frames * Self.frameMs }

    /// - Parameter firstFrameMs: when the stream's first frame arrived (agent clock).
    mutating func process(_ frame: UnsafeBufferPointer<Int16>, firstFrameMs: Int) {
        if !started {
            started = true
            baseMs = (firstFrameMs >= 0 ? firstFrameMs : host.clockMs()) - Self.frameMs
        }
        frames += 1
        lastProcessedMs = host.clockMs()
        let transition = vad.process(levelDB: VoiceActivityDetector.levelDB(frame))
        if !utteranceOpen {
            guard case .speechStarted(let ago)? = transition else {
                keepInPreroll(frame)
                return
            }
            openUtterance(frame, startedMsAgo: ago)
            return
        }
        do { try recognizer?.feed(frame) } catch { host.emit(.error(uid: uid, error as? AgentError ?? .engineFailed("\(error)"))) }
        handle(transition)
        emitPartialIfDue()
    }

    /// `ms` of audio that never arrived.
    mutating func processSilence(ms: Int) {
        guard started else { return }
        lastProcessedMs = host.clockMs()
        for _ in 0..<max(1, ms / Self.frameMs) {
            frames += 1
            recognizer?.skip(samples: FrameRing.frameSamples)
            let transition = vad.processGap()
            if utteranceOpen { handle(transition) }
        }
    }

    /// The participant is gone: their turn ends now.
    mutating func finish() {
        if utteranceOpen { endTurn() }
        preroll.deallocate()
    }

    // MARK: - Internals

    private mutating func keepInPreroll(_ frame: UnsafeBufferPointer<Int16>) {
        if prerollCount == Self.prerollFrames {
            recognizer?.skip(samples: FrameRing.frameSamples)  // the oldest leaves unheard
            prerollHead = (prerollHead + 1) % Self.prerollFrames
            prerollCount -= 1
        }
        let slot = (prerollHead + prerollCount) % Self.prerollFrames
        (preroll + slot * FrameRing.frameSamples).update(from: frame.baseAddress!, count: FrameRing.frameSamples)
        prerollCount += 1
    }

    private mutating func openUtterance(_ frame: UnsafeBufferPointer<Int16>, startedMsAgo: Int) {
        utteranceOpen = true
        segmentStartMs = nowMs - startedMsAgo
        turnStartMs = segmentStartMs
        lastPartialAtMs = nowMs
        lastPartial = ""
        do {
            try recognizer?.beginUtterance()
            for i in 0..<prerollCount {
                let slot = (prerollHead + i) % Self.prerollFrames
                try recognizer?.feed(UnsafeBufferPointer(start: preroll + slot * FrameRing.frameSamples, count: FrameRing.frameSamples))
            }
            try recognizer?.feed(frame)
        } catch {
            host.emit(.error(uid: uid, error as? AgentError ?? .engineFailed("\(error)")))
        }
        prerollCount = 0
        prerollHead = 0
        host.emit(.speechStarted(uid: uid, atMs: segmentStartMs))
        host.voiceChanged(uid, true)
    }

    private mutating func handle(_ transition: VoiceActivityDetector.Transition?) {
        switch transition {
        case .speechStarted(let ago)?:
            segmentStartMs = nowMs - ago
            host.emit(.speechStarted(uid: uid, atMs: segmentStartMs))
            host.voiceChanged(uid, true)
        case .speechEnded(let silent)?:
            host.emit(.speechEnded(uid: uid, startMs: segmentStartMs, endMs: nowMs - silent))
        case .turnEnded?:
            endTurn()
        case nil:
            break
        }
    }

    private mutating func endTurn() {
        utteranceOpen = false
        var transcript = Transcript(text: "", final: true, startMs: turnStartMs, endMs: nowMs)
        if let recognizer {
            do {
                var result = try recognizer.endUtterance()
                result.startMs += baseMs
                result.endMs += baseMs
                for i in result.words.indices {
                    result.words[i].startMs += baseMs
                    result.words[i].endMs += baseMs
                }
                transcript = result
            } catch {
                host.emit(.error(uid: uid, error as? AgentError ?? .engineFailed("\(error)")))
            }
        }
        if !transcript.text.isEmpty { host.emit(.transcript(uid: uid, transcript)) }
        host.emit(.turnEnded(uid: uid, transcript: transcript))
        host.voiceChanged(uid, false)
    }

    private mutating func emitPartialIfDue() {
        guard let recognizer, nowMs - lastPartialAtMs >= partialIntervalMs else { return }
        lastPartialAtMs = nowMs
        guard var partial = recognizer.partial(), partial.text != lastPartial else { return }
        lastPartial = partial.text
        partial.startMs += baseMs
        partial.endMs += baseMs
        host.emit(.transcript(uid: uid, partial))
    }
}
