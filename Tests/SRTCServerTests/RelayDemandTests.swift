import SRTCProtocol
import Testing
@testable import SRTCServer

/// Which layer a relayed track crosses a relay at (between nodes or workers): the best any
/// session on the far side asked for, set only when it changes.
@Suite struct RelayDemandTests {
    static let layers = [SimulcastLayer(rid: "h", desc: TrackDescName.cameraBig), SimulcastLayer(rid: "l", desc: TrackDescName.cameraSmall)]

    @Test func theRelayTakesTheBestLayerAnySessionAskedForAndChangesOnlyWhenThatChanges() {
        var demand = RelayDemand(layers: Self.layers, initial: TrackDescName.cameraSmall)
        // Each step: what `change()` answered (nil: leave the relay's consumer as it is).
        var changes: [String?] = []
        demand.set(session: "s1", layer: TrackDescName.cameraSmall)
        changes.append(demand.change())  // started at camera_small
        demand.set(session: "s2", layer: "h")  // by rid
        changes.append(demand.change())
        changes.append(demand.change())
        // nil (the best) and the best layer's own name are the same layer: no change.
        demand.set(session: "s3", layer: nil)
        demand.set(session: "s2", layer: TrackDescName.cameraBig)
        changes.append(demand.change())
        let removedS2 = demand.remove(session: "s2")
        changes.append(demand.change())  // s3 still wants the best
        let removedS3 = demand.remove(session: "s3"), removedS2Again = demand.remove(session: "s2")
        changes.append(demand.change())
        #expect(changes == [nil, TrackDescName.cameraBig, nil, nil, nil, TrackDescName.cameraSmall])
        #expect(removedS2 && removedS3 && !removedS2Again)
        #expect(demand.contains(session: "s1") && !demand.isEmpty)
        let removedS1 = demand.remove(session: "s1")
        #expect(removedS1 && demand.isEmpty)
    }

    @Test func aSingleLayerTrackNeverChanges() {
        var demand = RelayDemand(layers: [SimulcastLayer(rid: "", desc: TrackDescName.mic)], initial: nil)
        demand.set(session: "s1", layer: "anything")
        let change = demand.change()
        #expect(change == nil)
    }
}
