@testable import SRTCAgents
import Testing

/// The turn rules frame by frame, in virtual time (20 ms frames of given levels).
@Suite struct VoiceActivityDetectorTests {
    /// Runs `levels` (one per frame) and returns (frame index, transition) pairs.
    static func run(_ levels: [Float], _ settings: VoiceActivityDetector.Settings = .init()) -> [(Int, VoiceActivityDetector.Transition)] {
        var vad = VoiceActivityDetector(settings: settings)
        return levels.enumerated().compactMap { i, level in vad.process(levelDB: level).map { (i, $0) } }
    }

    static func frames(_ level: Float, ms: Int) -> [Float] { Array(repeating: level, count: ms / 20) }

    @Test func speechAfterSilenceStartsAfterThreeFramesAndTheTurnEndsAfterTheSilenceSetting() {
        let levels = Self.frames(-70, ms: 400) + Self.frames(-20, ms: 1_000) + Self.frames(-70, ms: 1_000)
        let transitions = Self.run(levels)
        #expect(transitions.map(\.1) == [.speechStarted(startedMsAgo: 60), .speechEnded(silentMs: 300), .turnEnded(silentMs: 800)])
        #expect(transitions.map(\.0) == [22, 84, 109])  // 20 silent + 3rd loud; 70 + 15th silent; 70 + 40th silent
    }

    @Test func aPauseShorterThanTheTurnsSilenceKeepsTheTurnOpen() {
        let speech = Self.frames(-20, ms: 600)
        let levels = Self.frames(-70, ms: 200) + speech + Self.frames(-70, ms: 500) + speech + Self.frames(-70, ms: 1_000)
        let kinds = Self.run(levels).map(\.1)
        #expect(kinds == [.speechStarted(startedMsAgo: 60), .speechEnded(silentMs: 300), .speechStarted(startedMsAgo: 60),
                          .speechEnded(silentMs: 300), .turnEnded(silentMs: 800)])
    }

    @Test func aClickIsNotSpeech() {
        let levels = Self.frames(-70, ms: 200) + Self.frames(-10, ms: 40) + Self.frames(-70, ms: 1_000)
        #expect(Self.run(levels).isEmpty)
    }

    @Test func steadyNoiseIsNeverSpeechAndSpeechAboveItIs() {
        // Noise from the first frame: it is the floor.
        #expect(Self.run(Self.frames(-30, ms: 5_000)).isEmpty)
        // Speech 20 dB above the noise is.
        let levels = Self.frames(-40, ms: 1_000) + Self.frames(-20, ms: 500) + Self.frames(-40, ms: 1_000)
        #expect(Self.run(levels).map(\.1).first == .speechStarted(startedMsAgo: 60))
    }

    @Test func noiseThatStartsLaterBecomesTheFloorWithinTheWindow() {
        let levels = Self.frames(-80, ms: 1_000) + Self.frames(-30, ms: 10_000)
        let transitions = Self.run(levels)
        // It looks like speech until the floor window (2 s) is all noise, then the turn ends.
        #expect(transitions.map(\.1).first == .speechStarted(startedMsAgo: 60))
        #expect(transitions.last.map(\.1) == .turnEnded(silentMs: 800))
        #expect((transitions.last?.0 ?? 0) * 20 < 1_000 + 2_000 + 800 + 100)
    }

    @Test func quietSoundsBelowTheMinimumLevelAreNotSpeech() {
        let levels = Self.frames(-95, ms: 500) + Self.frames(-60, ms: 1_000)
        #expect(Self.run(levels).isEmpty)
    }

    @Test func gapsEndATurnWithoutLoweringTheFloor() {
        var vad = VoiceActivityDetector()
        for level in Self.frames(-40, ms: 500) + Self.frames(-15, ms: 500) { _ = vad.process(levelDB: level) }
        #expect(vad.inTurn)
        var transitions: [VoiceActivityDetector.Transition] = []
        for _ in 0..<50 { if let t = vad.processGap() { transitions.append(t) } }
        #expect(transitions == [.speechEnded(silentMs: 300), .turnEnded(silentMs: 800)])
        #expect(vad.floorDB == -40)
    }

    @Test func theLevelOfFullScaleAndSilence() {
        let full = [Int16](repeating: .max, count: 320), zero = [Int16](repeating: 0, count: 320)
        #expect(abs(full.withUnsafeBufferPointer { VoiceActivityDetector.levelDB($0) }) < 0.01)
        #expect(zero.withUnsafeBufferPointer { VoiceActivityDetector.levelDB($0) } == -100)
    }
}
