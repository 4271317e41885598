import Foundation
import TestWait
import Testing
import RTCMedia
import RTCWire
import SRTCProtocol
import SRTCTestSupport

/// `set_layer` with `layer: "none"` (docs/protocol.md): the subscriber's video is paused at the
/// SFU (not one packet of it is forwarded), audio is refused, and a later `set_layer` resumes on a
/// key frame with the sequence numbers going on without a gap.
@Suite(.serialized) struct SubscriptionPauseTests {
    @Test func aPausedSubscriptionIsForwardedNothingAndResumesOnAKeyFrame() async throws {
        let server = try TestServer()
        let alice = try await MediaTestClient(server: server, uid: "alice", channel: "pause")
        let bob = try await MediaTestClient(server: server, uid: "bob", channel: "pause")
        let layers = ServerMediaTests.layers
        let tracks = try await alice.publish(video: layers)
        let audio = try #require(tracks.first { $0.kind == .audio })
        let video = try #require(tracks.first { $0.kind == .video })
        try await bob.subscribe(audio.id)
        try await bob.subscribe(video.id, layer: TrackDescName.cameraSmall)
        let publisher = try MediaTestPublisher(client: alice, video: layers)
        try await publisher.run(seconds: 1.5)
        try await bob.waitForMediaToSettle()
        let videoSSRC = try #require(bob.announcedSSRC(of: video.id))
        let audioSSRC = try #require(bob.announcedSSRC(of: audio.id))
        let endpoint = try #require(bob.subscribeEndpoint)
        let before = endpoint.packets(ssrc: videoSSRC).count
        #expect(before > 20, "video before the pause: \(before) packets")

        // Audio does not pause; an unknown layer is still refused.
        let audioPause = try await bob.signal.request(.setLayer(SubscribeRequest(trackId: audio.id, layer: LayerSwitchedInfo.pausedLayer)))
        #expect(audioPause.failureCode == .invalidParameter, "\(audioPause)")
        let unknown = try await bob.signal.request(.setLayer(SubscribeRequest(trackId: video.id, layer: "camera_huge")))
        #expect(unknown.failureCode == .invalidParameter, "\(unknown)")

        #expect(try await bob.signal.request(.setLayer(SubscribeRequest(trackId: video.id, layer: LayerSwitchedInfo.pausedLayer))) == .success(.empty))
        try await bob.waitForMediaToSettle()
        let atPause = endpoint.packets(ssrc: videoSSRC).count
        let audioAtPause = endpoint.packets(ssrc: audioSSRC).count
        try await publisher.run(seconds: 1.5)
        try await bob.waitForMediaToSettle()
        let whilePaused = endpoint.packets(ssrc: videoSSRC).count - atPause
        let audioWhilePaused = endpoint.packets(ssrc: audioSSRC).count - audioAtPause
        print("paused subscription: \(whilePaused) video packets forwarded in 1.5 s, \(audioWhilePaused) audio packets")
        #expect(whilePaused == 0, "\(whilePaused) video packets forwarded while paused")
        #expect(audioWhilePaused > 50, "audio goes on: \(audioWhilePaused) packets")

        #expect(try await bob.signal.request(.setLayer(SubscribeRequest(trackId: video.id, layer: TrackDescName.cameraBig))) == .success(.empty))
        try await publisher.run(seconds: 1.5)
        try await bob.waitForMediaToSettle()
        let packets = endpoint.packets(ssrc: videoSSRC)
        let resumed = Array(packets[atPause...])
        #expect(resumed.count > 20, "video after resuming: \(resumed.count) packets")
        // The sequence goes on from the last packet before the pause: no gap for the receiver to NACK.
        #expect(ServerMediaTests.contiguous(packets), "sequence numbers jump across the pause")
        let frames = try ServerMediaTests.decode(resumed)
        #expect(frames.first?.key == true, "resumed on a key frame")
        #expect(frames.count > 20 && frames.allSatisfy { $0.width == 640 }, "\(frames.count) frames, widths \(Set(frames.map(\.width)))")
        let numbers = frames.compactMap(\.number)
        #expect(numbers == numbers.sorted() && !numbers.isEmpty)
        alice.close(); bob.close()
        await server.stop()
    }
}

private extension Result where Success == ResponseData, Failure == SignalError {
    var failureCode: APIErrorCode? { if case .failure(let error) = self { return error.errorCode }; return nil }
}
