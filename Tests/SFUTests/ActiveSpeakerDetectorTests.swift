import Foundation
import Testing
@testable import SFU

struct ActiveSpeakerDetectorTests {
    static func input(_ id: String, dBov: UInt8?) -> ActiveSpeakerDetector.Input {
        ActiveSpeakerDetector.Input(participant: ParticipantID(id), producer: ProducerID("mic-" + id),
                                    meanAmplitude: dBov.map { AudioLevel.amplitude(dBov: $0) } ?? 0)
    }

    @Test func amplitudeTableFollowsTheDecibelScale() {
        #expect(AudioLevel.amplitude(dBov: 0) == 1)
        #expect(abs(AudioLevel.amplitude(dBov: 20) - 0.1) < 1e-12)
        #expect(AudioLevel.amplitude(dBov: 127) == 0)
        #expect(abs(AudioLevel.dBov(amplitude: 0.01) - 40) < 1e-9)
        var accumulator = AudioLevelAccumulator()
        accumulator.add(dBov: 0)
        accumulator.add(dBov: 127)
        let mean = accumulator.takeMean(), empty = accumulator.takeMean()
        #expect(mean == 0.5)
        #expect(empty == 0)
    }

    @Test func loudestFirstAndOnlyWhenTheOrderChanges() throws {
        var detector = ActiveSpeakerDetector()
        let update = detector.update([Self.input("alice", dBov: 30), Self.input("bob", dBov: 20),
                                      Self.input("carol", dBov: nil)], elapsed: 250_000)
        let first = try #require(update)
        #expect(first.map(\.participant) == ["bob", "alice"])
        #expect(first.map(\.producer) == ["mic-bob", "mic-alice"])
        // Same order, other levels: no snapshot.
        let unchanged = detector.update([Self.input("alice", dBov: 28), Self.input("bob", dBov: 22),
                                         Self.input("carol", dBov: nil)], elapsed: 250_000)
        #expect(unchanged == nil)
    }

    @Test func smoothingDelaysAnOvertakeAndTheListEmptiesInSilence() throws {
        var detector = ActiveSpeakerDetector()
        let alpha = 1 - exp(-250.0 / 400.0)
        _ = detector.update([Self.input("alice", dBov: 20), Self.input("bob", dBov: 40)], elapsed: 250_000)
        #expect(abs(detector.level(of: "mic-alice") - alpha * 0.1) < 1e-12)
        // Bob gets louder than Alice for one interval: smoothing keeps Alice first…
        let held = detector.update([Self.input("alice", dBov: 20), Self.input("bob", dBov: 17)], elapsed: 250_000)
        #expect(held == nil)
        // …and a second interval lets Bob overtake.
        let second = detector.update([Self.input("alice", dBov: 20), Self.input("bob", dBov: 17)], elapsed: 250_000)
        let overtaken = try #require(second)
        #expect(overtaken.map(\.participant) == ["bob", "alice"])
        // Everybody silent: levels decay below the threshold and the list empties.
        var last: [SpeakerLevel]? = nil
        for _ in 0 ..< 20 {
            if let snapshot = detector.update([Self.input("alice", dBov: nil), Self.input("bob", dBov: nil)],
                                              elapsed: 250_000) { last = snapshot }
        }
        #expect(last == [])
    }
}
