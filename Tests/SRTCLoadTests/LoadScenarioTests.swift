import Testing
@testable import SRTCLoad

/// Scenario bounds: a load generator on one machine refuses what it cannot hold.
struct LoadScenarioTests {
    @Test(arguments: [
        (LoadScenario(rooms: 0), "rooms"),
        (LoadScenario(publishers: 0), "publishers"),
        (LoadScenario(subscribers: 501), "subscribers"),
        (LoadScenario(rooms: 200, publishers: 4, subscribers: 4), "participants"),
        (LoadScenario(duration: 0.5), "duration"),
        (LoadScenario(audio: false, video: false), "audio"),
        (LoadScenario(publishers: 1, subscribers: 0), "nobody"),
        (LoadScenario(layer: "camera_small"), "simulcast"),
        (LoadScenario(simulcast: true, layer: "screen"), "layer"),
        (LoadScenario(joinRate: 0), "join rate"),
    ])
    func outOfBoundsScenariosAreRefusedByName(scenario: LoadScenario, word: String) {
        #expect(throws: LoadError.self) { try scenario.validate() }
        do { try scenario.validate() } catch { #expect(error.description.contains(word)) }
    }

    @Test func theBenchScenariosAreWithinBounds() throws {
        for scenario in [LoadScenario(subscribers: 200), LoadScenario(rooms: 10, publishers: 5, subscribers: 0),
                         LoadScenario(rooms: 50, publishers: 2, subscribers: 0), LoadScenario(simulcast: true, layer: "camera_small")] {
            try scenario.validate()
        }
        #expect(LoadScenario(subscribers: 50).label == "1→50")
        #expect(LoadScenario(rooms: 10, publishers: 5, subscribers: 0).label == "10 rooms × 5+0")
        // 10 rooms × 5: each of the 5 receives the other 4, audio and video.
        #expect(LoadScenario(rooms: 10, publishers: 5, subscribers: 0).subscribedStreams == 10 * 5 * 4 * 2)
        #expect(LoadScenario(subscribers: 8, audio: false).subscribedStreams == 8)
    }
}
