import Foundation
import RTCMedia
import SRTC
import SRTCTestSupport
import TestWait
import Testing

/// The server and end-to-end encrypted tracks (docs/e2ee.md): it forwards them and says they are
/// encrypted, and refuses to record them instead of writing ciphertext to a file, while it still
/// records the channel's other tracks.
@Suite(.serialized) struct EgressE2EETests {
    @Test func encryptedTracksAreAnnouncedAndRefusedForRecording() async throws {
        let server = try EgressTestServer()
        let encrypted = SDKPeer(e2ee: E2EEConfiguration(keyProvider: .sharedKey(passphrase: "p4ss")))
        try await encrypted.channel.join(url: server.url, token: server.token(uid: "secret", channel: "mixed"))
        let video = encrypted.engine.createLocalCustomVideoTrack(desc: "camera", preset: VideoPreset(width: 320, height: 180, frameRate: 15, maxBitrate: 300_000))
        try await encrypted.channel.publishLocalTrack(video)
        let pusher = try SDKMediaPusher(video: video, audio: nil, width: 320, height: 180, fps: 15)
        defer { pusher.stop() }
        let (plain, plainPusher) = try await EgressRecordingTests.publisher(server, uid: "open", channel: "mixed")
        defer { plainPusher.stop() }

        // Everyone learns which tracks are encrypted.
        let viewer = SDKPeer()
        try await viewer.channel.join(url: server.url, token: server.token(uid: "viewer", channel: "mixed"))
        try await eventually("the viewer sees both cameras") {
            viewer.channel.remoteTrack(uid: "secret", desc: "camera") != nil && viewer.channel.remoteTrack(uid: "open", desc: "camera_big") != nil
        }
        #expect(viewer.channel.remoteTrack(uid: "secret", desc: "camera")?.info?.e2ee == true)
        #expect(viewer.channel.remoteTrack(uid: "open", desc: "camera_big")?.info?.e2ee == nil)

        // Recording the encrypted track is refused with the documented error; the other records.
        let (status, json) = try await server.call("/server/v1/channel/record/start", ["channel": "mixed", "uid": "secret", "desc": "camera"])
        #expect(status == 409 && json["code"] as? Int == 40901, "\(status) \(json)")
        #expect((json["message"] as? String)?.contains("end-to-end encrypted") == true, "\(json)")
        let recording = try await EgressRecordingTests.start(server, ["channel": "mixed", "uid": "open", "desc": "camera_big"])
        let file = server.recordings + "/" + (recording["file"] as? String ?? "")
        try await eventually("the open camera recording writes") { (EgressSupervisorFiles.size(file) ?? 0) > 2_000 }
        let finished = try await EgressRecordingTests.stop(server, recording)
        #expect(finished["status"] as? String == "finished", "\(finished)")

        await viewer.channel.leave()
        await plain.channel.leave()
        await encrypted.channel.leave()
        await server.stop()
    }
}
