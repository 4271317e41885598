import RTCMedia
@testable import SRTCAgents
import TestRandom
import Testing

/// What the agent's audio path does with any PCM a participant's decoder could hand it: random
/// rates, channel counts, sizes and samples (clipped, silent, noise) never crash it, and what
/// comes out is 16 kHz frames the detector and recognizer take.
@Suite struct AgentAudioRobustnessTests {
    @Test(arguments: [UInt64(1), 2])
    func randomBuffersGoThroughTheConverterDetectorAndRecognizer(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        let recognizer = try PocketSphinxSpeechToText().makeRecognizer()
        var vad = VoiceActivityDetector()
        let converter = PCMConverter(outputRate: 16_000)
        var frame: [Int16] = []
        try recognizer.beginUtterance()
        var produced = 0
        for _ in 0..<60 {
            let rate = [8_000, 16_000, 22_050, 44_100, 48_000, 96_000, Int.random(in: 1_000...200_000, using: &random)].randomElement(using: &random)!
            let channels = Int.random(in: 1...4, using: &random)
            let frames = Int.random(in: 0...960, using: &random)
            let kind = Int.random(in: 0..<4, using: &random)
            let samples: [Float] = (0..<frames * channels).map { _ in
                switch kind {
                case 0: return 0
                case 1: return Float.random(in: -1...1, using: &random)
                case 2: return Float.random(in: -1...1, using: &random) > 0 ? 1 : -1  // clipped square
                default: return Float.random(in: -8...8, using: &random)  // beyond full scale
                }
            }
            try converter.convert(AudioPCMBuffer(float32: samples, sampleRate: rate, channels: channels)) { out in
                produced += out.count
                frame += out
                while frame.count >= 320 {
                    try frame.prefix(320).withUnsafeBufferPointer { chunk in
                        _ = vad.process(levelDB: VoiceActivityDetector.levelDB(chunk))
                        try recognizer.feed(chunk)
                    }
                    frame.removeFirst(320)
                }
            }
        }
        _ = try recognizer.endUtterance()
        #expect(produced > 0)
        #expect(vad.floorDB >= -90 && vad.floorDB <= 20, "floor \(vad.floorDB)")
    }

    @Test func aConverterRefusesFormatsOutOfRangeWithANamedError() {
        let converter = PCMConverter(outputRate: 16_000)
        #expect(throws: AgentError.self) {
            try converter.convert(AudioPCMBuffer(float32: [0, 0], sampleRate: 500_000, channels: 1)) { _ in }
        }
        #expect(throws: AgentError.self) {
            try converter.convert(AudioPCMBuffer(float32: [Float](repeating: 0, count: 9), sampleRate: 48_000, channels: 9)) { _ in }
        }
        // Then a good buffer still converts.
        var count = 0
        try? converter.convert(AudioPCMBuffer(float32: [Float](repeating: 0, count: 960), sampleRate: 48_000, channels: 1)) { count = $0.count }
        #expect(count > 0)
    }

    @Test func theFrameRingDropsTheOldestWhenItsReaderFallsBehind() {
        let ring = FrameRing(capacityFrames: 3)
        var frame = [Int16](repeating: 0, count: 320)
        for n in 0..<5 {
            frame[0] = Int16(n)
            frame.withUnsafeBufferPointer { ring.push($0.baseAddress!) }
        }
        #expect(ring.dropped == 2)
        var out = [Int16](repeating: -1, count: 320)
        var firsts: [Int16] = []
        while out.withUnsafeMutableBufferPointer({ ring.pop(into: $0.baseAddress!) }) { firsts.append(out[0]) }
        #expect(firsts == [2, 3, 4])
    }
}
