import Foundation
import RTCMedia
import RTCNet
import RTCWire
import SRTCProtocol
import Testing
@testable import SRTCLoad

/// Our client stack against Janus VideoRoom (Debian's Janus 1.1, started here with its own
/// configuration): a publisher sends simulcast VP8 and Opus into a room, a subscriber receives it
/// back through Janus, and the frames are decoded: the frame numbers the pattern carries arrive in
/// order, and the audio is the 440 Hz tone that was sent.
struct JanusInteropTests {
    @Test(.timeLimit(.minutes(2)))
    func ourStackPublishesToJanusAndSubscribesBack() async throws {
        let janus = try await JanusServer.start()
        do { try await exercise(janus) } catch {
            await janus.shutDown()
            throw error
        }
        await janus.shutDown()
    }

    private func exercise(_ janus: JanusServer) async throws {
        let target = JanusLoadTarget(baseURL: janus.apiURL)
        let scenario = LoadScenario(publishers: 1, subscribers: 1, duration: 3, simulcast: true)
        let run = try await LoadRun(scenario: scenario, target: target, capture: true)
        try await run.setUp()
        let report = await run.measure(seconds: 3)
        let subscriber = try #require(run.subscribers.first)
        let video = await subscriber.capturedPackets(kind: .video)
        let audio = await subscriber.capturedPackets(kind: .audio)
        await run.tearDown()

        #expect(report.failures.isEmpty, "\(report.failures)")
        #expect(report.worstSubscriberDelivery >= 0.95, "delivery \(report.worstSubscriberDelivery)")
        // Janus drops abs-capture-time; the padding stamp came through its payload path.
        #expect(report.latency.samples > 0)

        // Decoding is seconds of CPU in a debug build: off the cooperative pool.
        let firstVideo = try #require(video.first), firstAudio = try #require(audio.first)
        let numbers = try await Thread.blockingRun { Result { try Self.decodedFrameNumbers(firstVideo) } }.get()
        #expect(numbers.count >= 60, "decoded \(numbers.count) frames")
        // The pattern counts 0…59 (the two-second loop); a key frame may restart it at 0.
        for (previous, next) in zip(numbers, numbers.dropFirst()) {
            #expect(next == (previous + 1) % 60 || next == 0, "frame \(next) after \(previous)")
        }
        let tone = try await Thread.blockingRun { Result { try Self.decodedTone(firstAudio) } }.get()
        #expect(abs(tone - 440) < 10, "tone \(tone) Hz")
    }

    /// Reassembles and decodes VP8; returns each decoded frame's pattern number.
    static func decodedFrameNumbers(_ packets: [LoadReceivedStream.CapturedPacket]) throws -> [Int] {
        var assembler = VP8FrameAssembler()
        let decoder = try VP8Decoder()
        var numbers: [Int] = []
        for packet in packets {
            let output = try assembler.push(payload: packet.payload, sequenceNumber: packet.sequenceNumber,
                                            timestamp: packet.timestamp, marker: packet.marker)
            guard let frame = output.frame, let picture = try decoder.decode(frame.data),
                  let number = TestPatternReader.frameNumber(in: picture) else { continue }
            numbers.append(number)
        }
        return numbers
    }

    /// Decodes the Opus packets and estimates the tone's frequency.
    static func decodedTone(_ packets: [LoadReceivedStream.CapturedPacket]) throws -> Double {
        let decoder = try OpusDecoder(sampleRate: 48_000, channels: 1)
        var samples: [Float] = []
        for packet in packets { samples += try decoder.decode(packet.payload).floatSamples }
        return FrequencyEstimator.zeroCrossingFrequency(Array(samples.dropFirst(4_800)), sampleRate: 48_000) ?? 0
    }
}
