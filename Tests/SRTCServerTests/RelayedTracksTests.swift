import SFU
import SRTCProtocol
import Testing
@testable import SRTCServer

/// The tracks one relay carries and what each change makes the relay do on the channel's router.
@Suite struct RelayedTracksTests {
    static let layers = [SimulcastLayer(rid: "h", desc: TrackDescName.cameraBig), SimulcastLayer(rid: "l", desc: TrackDescName.cameraSmall)]

    @Test func sessionsTakingAndLeavingATrackMoveItsLayerAndTheLastOneStopsIt() {
        var tracks = RelayedTracks()
        let video = ConsumerID("~worker:1#t/TR_v"), audio = ConsumerID("~worker:1#t/TR_a")
        #expect(!tracks.carries("TR_v"))
        tracks.start("TR_v", consumer: video, layers: Self.layers, initial: TrackDescName.cameraSmall)
        tracks.start("TR_a", consumer: audio, layers: [], initial: nil)
        var actions: [RelayedTracks.Action?] = []
        actions.append(tracks.take("TR_v", session: "s1", layer: TrackDescName.cameraSmall))  // as started
        actions.append(tracks.take("TR_a", session: "s1", layer: nil))                           // one layer
        actions.append(tracks.take("TR_v", session: "s2", layer: TrackDescName.cameraSmall))
        actions.append(tracks.setLayer("TR_v", session: "s2", layer: TrackDescName.cameraBig))  // the best asked for
        actions.append(tracks.setLayer("TR_v", session: "s3", layer: TrackDescName.cameraBig))  // s3 takes nothing
        actions.append(tracks.release("TR_v", session: "s2"))                                   // back to s1's
        actions.append(tracks.release("TR_v", session: "s2"))                                   // already gone
        #expect(Set(tracks.trackIds(takenBy: "s1")) == ["TR_v", "TR_a"] && tracks.trackIds(takenBy: "s2").isEmpty)
        actions.append(tracks.release("TR_v", session: "s1"))                                   // the last one
        #expect(actions == [nil, nil, nil, .setLayer(video, TrackDescName.cameraBig), nil, .setLayer(video, TrackDescName.cameraSmall),
                            nil, .stop(video)])
        #expect(!tracks.carries("TR_v") && tracks.carries("TR_a"))
        let left = tracks.removeAll()
        #expect(left == [audio] && !tracks.carries("TR_a"))
    }
}
