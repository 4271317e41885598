import Testing
@testable import RTCMedia

@Suite struct OpusCodecTests {
    /// Encodes `count` 20 ms frames of a tone and returns the packets.
    private func tonePackets(frequency: Double, count: Int, configuration: OpusEncoder.Configuration = .init())
        throws -> [[UInt8]] {
        let encoder = try OpusEncoder(configuration: configuration)
        var tone = SineToneGenerator(frequency: frequency, channels: configuration.channels)
        return try (0..<count).map { _ in try encoder.encode(tone.next(frameCount: encoder.frameSize)) }
    }

    @Test(arguments: [1, 2])
    func toneSurvivesEncodeDecode(channels: Int) throws {
        var configuration = OpusEncoder.Configuration()
        configuration.channels = channels
        let packets = try tonePackets(frequency: 440, count: 50, configuration: configuration)
        #expect(packets.allSatisfy { (3...1275).contains($0.count) })
        let decoder = try OpusDecoder(channels: channels)
        var pcm: [Float] = []
        for packet in packets {
            let buffer = try decoder.decode(packet)
            #expect(buffer.frameCount == 960 && buffer.channels == channels)
            pcm += buffer.channel(channels - 1)
        }
        // Skip the first 100 ms while the codec settles.
        let steady = Array(pcm[4_800...])
        let frequency = try #require(FrequencyEstimator.zeroCrossingFrequency(steady, sampleRate: 48_000))
        #expect(abs(frequency - 440) < 2, "measured \(frequency) Hz")
        #expect(FrequencyEstimator.goertzelPower(steady, frequency: 440, sampleRate: 48_000) >
                100 * FrequencyEstimator.goertzelPower(steady, frequency: 1_000, sampleRate: 48_000))
    }

    @Test func lossConcealmentAndFECProduceOneFrameEach() throws {
        let packets = try tonePackets(frequency: 440, count: 10)
        let decoder = try OpusDecoder()
        for packet in packets[0..<5] { _ = try decoder.decode(packet) }
        // Packet 5 is lost: rebuild it from packet 6's FEC, then decode 6, then conceal a loss with nothing.
        let recovered = try decoder.decodeFEC(from: packets[6])
        #expect(recovered.frameCount == 960)
        #expect(try decoder.decode(packets[6]).frameCount == 960)
        let concealed = try decoder.decode(nil)
        #expect(concealed.frameCount == 960)
        #expect(FrequencyEstimator.rms(recovered.floatSamples) > 0.05)
    }

    @Test func garbageIsRejectedWithANamedError() throws {
        let decoder = try OpusDecoder()
        // TOC code 3 (0x03) with a frame-count byte of 0 frames is invalid (RFC 6716 §3.2.5).
        #expect(throws: OpusError.invalidPacket) { try decoder.decode([0x03, 0x00]) }
        #expect(throws: OpusError.invalidPacket) { try decoder.decode([]) }
    }

    @Test func encoderRejectsWrongFrameSizesAndSettings() throws {
        let encoder = try OpusEncoder()
        #expect(throws: OpusError.frameSizeMismatch(expectedFrames: 960, actualFrames: 100)) {
            try encoder.encode(AudioPCMBuffer.silence(frameCount: 100, sampleRate: 48_000, channels: 1))
        }
        #expect(throws: OpusError.pcmFormatMismatch(expectedSampleRate: 48_000, expectedChannels: 1)) {
            try encoder.encode(AudioPCMBuffer.silence(frameCount: 960, sampleRate: 48_000, channels: 2))
        }
        var bad = OpusEncoder.Configuration()
        bad.frameDurationMs = 25
        #expect(throws: OpusError.unsupportedConfiguration("frameDurationMs 25")) { try OpusEncoder(configuration: bad) }
        #expect(throws: OpusError.unsupportedConfiguration("bitrate 1")) { try encoder.setBitrate(1) }
        try encoder.setBitrate(64_000)
        #expect(encoder.configuration.bitrate == 64_000)
    }

    @Test func dtxSendsTinyPacketsForSilence() throws {
        var configuration = OpusEncoder.Configuration()
        configuration.dtx = true
        let encoder = try OpusEncoder(configuration: configuration)
        let silence = AudioPCMBuffer.silence(frameCount: 960, sampleRate: 48_000, channels: 1)
        let lengths = try (0..<30).map { _ in try encoder.encode(silence).count }
        #expect(lengths.suffix(10).allSatisfy { OpusEncoder.isDTXPacket(length: $0) }, "\(lengths)")
    }

    @Test func floatInputEncodes() throws {
        let encoder = try OpusEncoder()
        let buffer = AudioPCMBuffer(float32: [Float](repeating: 0.1, count: 960), sampleRate: 48_000, channels: 1)
        #expect(try encoder.encode(buffer).count > 0)
    }

    @Test func sineGeneratorKeepsPhaseAndTime() {
        var tone = SineToneGenerator(frequency: 1_000, sampleRate: 8_000, amplitude: 1)
        let first = tone.next(frameCount: 4)
        let second = tone.next(frameCount: 4)
        // 1 kHz at 8 kHz: 8 samples per period, peaks at ±32 767.
        #expect(first.int16Samples == [0, 23_170, 32_767, 23_170])
        #expect(second.int16Samples == [0, -23_170, -32_767, -23_170])
        #expect(second.timestampUs == 500)
    }
}
