import Foundation

/// Energy-based voice activity and turn detection for one speaker, frame by frame (a pure
/// state machine: levels in, transitions out; no clock, no allocation).
///
/// A frame is speech when its level is `margin` dB above the speaker's noise floor and above
/// `minimumLevel`. Speech starts after `startFrames` such frames in a row (a click is not
/// speech); a segment ends after `segmentHangoverMs` without speech; the turn ends after
/// `endOfTurnSilenceMs` without speech. The noise floor is the lowest level of the last
/// `floorWindowMs`: a steady noise becomes the floor within that window and is then never speech,
/// while speech, whose level dips between syllables and words, keeps a floor below it.
public struct VoiceActivityDetector: Sendable {
    /// The detector's settings; the defaults suit 20 ms frames of a conversation.
    public struct Settings: Sendable, Equatable {
        /// Frame duration in milliseconds.
        public var frameMs: Int = 20
        /// How far above the noise floor speech must be, in dB.
        public var marginDB: Float = 12
        /// Nothing quieter than this (dBFS) is speech, whatever the floor.
        public var minimumLevelDB: Float = -50
        /// Speech frames in a row before speech starts.
        public var startFrames: Int = 3
        /// Silence that ends a voice-activity segment.
        public var segmentHangoverMs: Int = 300
        /// Silence that ends the speaker's turn (`Agent` finalises its transcript then).
        public var endOfTurnSilenceMs: Int = 800
        /// The window whose quietest frame is the noise floor.
        public var floorWindowMs: Int = 2_000

        public init() {}
    }

    /// What a frame changed.
    public enum Transition: Sendable, Equatable {
        /// Speech started (the first of the `startFrames` frames began `startedMsAgo` ms before this frame's end).
        case speechStarted(startedMsAgo: Int)
        /// The segment ended `silentMs` ago (its last speech frame).
        case speechEnded(silentMs: Int)
        /// The turn ended: `silentMs` of silence after the last segment.
        case turnEnded(silentMs: Int)
    }

    public let settings: Settings
    /// Whether a segment is open (speech, or silence shorter than the hangover).
    public private(set) var inSpeech = false
    /// Whether a turn is open (from the first speech until `endOfTurnSilenceMs` of silence).
    public private(set) var inTurn = false
    /// The current noise floor in dBFS.
    public var floorDB: Float { recentLevels.min() ?? -100 }
    private var speechRun = 0
    private var silentMs = 0
    /// The last frames' levels, a ring (made once: no allocation per frame).
    private var recentLevels: [Float]
    private var nextLevel = 0
    private let windowFrames: Int

    public init(settings: Settings = Settings()) {
        self.settings = settings
        windowFrames = max(1, settings.floorWindowMs / max(1, settings.frameMs))
        recentLevels = []
        recentLevels.reserveCapacity(windowFrames)
    }

    /// The level of `samples` in dBFS (RMS; -100 for digital silence).
    public static func levelDB(_ samples: UnsafeBufferPointer<Int16>) -> Float {
        guard !samples.isEmpty else { return -100 }
        var sum: Double = 0
        for s in samples { let v = Double(s); sum += v * v }
        let rms = (sum / Double(samples.count)).squareRoot() / 32_768
        return rms > 0 ? max(-100, Float(20 * log10(rms))) : -100
    }

    /// Takes one frame's level; returns what it changed (at most one transition per frame:
    /// a segment end and a turn end never fall on the same frame with a hangover shorter than the turn's silence).
    public mutating func process(levelDB: Float) -> Transition? {
        // The floor includes this frame, never below -90 dBFS (digital silence has no floor).
        let level = max(-90, levelDB)
        if recentLevels.count < windowFrames {
            recentLevels.append(level)
        } else {
            recentLevels[nextLevel] = level
            nextLevel = (nextLevel + 1) % windowFrames
        }
        let voiced = levelDB >= settings.minimumLevelDB && levelDB >= floorDB + settings.marginDB
        if voiced {
            speechRun += 1
            silentMs = 0
            if !inSpeech && speechRun >= settings.startFrames {
                inSpeech = true
                inTurn = true
                return .speechStarted(startedMsAgo: speechRun * settings.frameMs)
            }
            return nil
        }
        speechRun = 0
        return silence()
    }

    private mutating func silence() -> Transition? {
        guard inTurn else { return nil }
        silentMs += settings.frameMs
        if inSpeech && silentMs >= settings.segmentHangoverMs {
            inSpeech = false
            if silentMs < settings.endOfTurnSilenceMs { return .speechEnded(silentMs: silentMs) }
        }
        if !inSpeech && silentMs >= settings.endOfTurnSilenceMs {
            inTurn = false
            return .turnEnded(silentMs: silentMs)
        }
        return nil
    }

    /// Takes a frame that never arrived (the sender sent nothing): silence for the turn
    /// detector, but not a level for the noise floor.
    public mutating func processGap() -> Transition? {
        speechRun = 0
        return silence()
    }

    /// Forgets the speaker (left, or their track ended): no segment, no turn.
    public mutating func reset() {
        self = VoiceActivityDetector(settings: settings)
    }
}
