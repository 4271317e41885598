import Foundation
import SRTCCore
import SRTCLab
import SRTCProtocol
import SRTCTestSupport
import Testing

/// Video without simulcast under 150 kbit/s (issue 26: "below the smallest layer the video
/// pauses"; docs/network.md, "One layer pauses too"): the publisher sends its 640×360 camera as
/// one stream (a track without `layers`), the Swift SDK subscriber is told of the pause with the
/// simulcast pause's event, the audio goes on, and the video resumes by itself when the link
/// returns. In the layer suite: no two layer calls at once.
extension NetworkLabLayerTests {
    @Test func singleLayerVideoPausesBelow150kbitAudioContinuesAndVideoResumes() async throws {
        try await ending(try await LabCall(simulcast: false)) { call in
            // Waited for by the scenario (it throws otherwise): the pause's event, the track
            // saying so, the resume's event and 30 frames after it.
            let figures = try await LabScenario.pause(call)
            print("single layer:", figures)
            let track = try #require(call.subscriber.remoteTracks.compactMap { $0 as? RemoteVideoTrack }.first?.info)
            #expect(track.layers.isEmpty, "the camera was published as simulcast: \(track.layers)")
            // The one layer is named by the track's desc (docs/protocol.md, `layer_switched`).
            #expect(figures.pausedFrom == track.desc && figures.resumedOn == track.desc)
            #expect(figures.madeAfterPause.isEmpty, "frames made after the pause decoded while paused: \(figures.madeAfterPause)")
            // The tail: what the tbf's queue and the pacer held when the event left (seen with
            // simulcast: 2–7 frames); a video still flowing would give about 90 in the quiet 6 s.
            #expect(figures.framesWhilePaused < 30, "\(figures.framesWhilePaused) frames decoded in 6 s while paused; switches: \(figures.switches)")
            // The 48 audio packets a second, as the listener gets them: frames decoded from
            // a packet per second of sent audio, in every 1 s window while paused.
            #expect((figures.audioDecodedWhilePaused.min() ?? 0) >= Self.minimumAudioRate,
                    "audio decoded while paused: lowest \(fmt(figures.audioDecodedWhilePaused.min() ?? 0)) a second")
            #expect(figures.audioRateWhilePaused >= Self.minimumAudioRate,
                    "\(figures.audioWhilePaused) audio packets in \(fmt(figures.quietSeconds)) s while paused")
            #expect(!figures.trackStillPausedAfter)
        }
    }
}
