@testable import SRTCServer
import SRTCProtocol
import Testing

/// The server-side mutes a channel's owner puts on tracks: held by (uid, desc), released to
/// whatever the publisher chose itself.
@Suite struct MediaHoldsTests {
    let mic = TrackInfo(id: "TR_1", uid: "bob", kind: .audio, desc: "mic")
    let camera = TrackInfo(id: "TR_2", uid: "bob", kind: .video, desc: "camera_big")

    @Test func aHoldMutesEveryTrackOfItsDescriptionUntilReleased() {
        var holds = MediaHolds()
        #expect(!holds.effectiveMuted(mic))
        let changes = [holds.set(uid: "bob", desc: "mic", held: true), holds.set(uid: "bob", desc: "mic", held: true)]
        #expect(changes == [true, false])                                  // the second changes nothing
        #expect(holds.effectiveMuted(mic) && !holds.effectiveMuted(camera))
        #expect(!holds.isHeld(uid: "alice", desc: "mic"))
        // A track published later with the same description is held too.
        #expect(holds.effectiveMuted(TrackInfo(id: "TR_9", uid: "bob", kind: .audio, desc: "mic")))
        let releases = [holds.set(uid: "bob", desc: "mic", held: false), holds.set(uid: "bob", desc: "mic", held: false)]
        #expect(releases == [true, false])
        #expect(!holds.effectiveMuted(mic))
    }

    @Test func releasingRestoresThePublishersOwnChoice() {
        var holds = MediaHolds()
        holds.setOwn(trackId: mic.id, muted: true)
        _ = holds.set(uid: "bob", desc: "mic", held: true)
        holds.setOwn(trackId: mic.id, muted: true)
        _ = holds.set(uid: "bob", desc: "mic", held: false)
        #expect(holds.effectiveMuted(mic))                                // still muted by bob himself
        holds.setOwn(trackId: mic.id, muted: false)
        #expect(!holds.effectiveMuted(mic))
        _ = holds.set(uid: "bob", desc: "mic", held: true)
        holds.forget(uid: "bob")
        holds.forget(trackId: mic.id)
        #expect(!holds.effectiveMuted(mic) && !holds.own(trackId: mic.id))
    }
}
