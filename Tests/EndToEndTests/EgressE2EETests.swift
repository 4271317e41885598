import Foundation
import MediaTestSupport
import RTCMedia
import SRTC
import SRTCLab
import SRTCTestSupport
import TestWait
import Testing

/// The server and end-to-end encrypted tracks (docs/e2ee.md): it forwards them and says they are
/// encrypted, and refuses to record them instead of writing ciphertext to a file, while it still
/// records the channel's other tracks.
@Suite(.serialized) struct EgressE2EETests {
    /// `secret` joins `channel` with `keys` and publishes an encrypted 320×180 numbered camera.
    static func encryptedCamera(_ server: EgressTestServer, channel: String, keys: E2EEKeyProvider) async throws -> (SDKPeer, SDKMediaPusher) {
        let encrypted = SDKPeer(e2ee: E2EEConfiguration(keyProvider: keys))
        try await encrypted.channel.join(url: server.url, token: server.token(uid: "secret", channel: channel))
        let video = encrypted.engine.createLocalCustomVideoTrack(desc: "camera", preset: VideoPreset(width: 320, height: 180, frameRate: 15, maxBitrate: 300_000))
        try await encrypted.channel.publishLocalTrack(video)
        return (encrypted, try SDKMediaPusher(video: video, audio: nil, width: 320, height: 180, fps: 15))
    }

    @Test func encryptedTracksAreAnnouncedAndRefusedForRecording() async throws {
        let server = try EgressTestServer()
        let (encrypted, pusher) = try await Self.encryptedCamera(server, channel: "mixed", keys: .sharedKey(passphrase: "p4ss"))
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

    /// The trusted recorder (docs/e2ee.md): a recording handed per-participant keys holds the
    /// encrypted camera's frames, and keeps them through a ratchet once `e2ee/keys` hands it the
    /// new key; keys that cannot be used are refused.
    @Test func theTrustedRecorderDecryptsWithTheKeysItWasHanded() async throws {
        let server = try EgressTestServer()
        let keys = E2EEKeyProvider.perParticipant(ratchetWindow: 1)
        let first = [UInt8](repeating: 7, count: 16), second = [UInt8](repeating: 9, count: 16)
        keys.setKey(first, for: "secret", index: 0)
        let (encrypted, pusher) = try await Self.encryptedCamera(server, channel: "trusted", keys: keys)
        defer { pusher.stop() }
        let key0 = ["uid": "secret", "index": 0, "key": Data(first).base64EncodedString()] as [String: Any]
        let key1 = ["uid": "secret", "index": 1, "key": Data(second).base64EncodedString()] as [String: Any]
        try await eventually("the server knows the camera") {
            let (_, json) = try await server.call("/server/v1/channel/record/start", ["channel": "trusted", "uid": "secret", "desc": "camera"])
            return json["code"] as? Int == 40901
        }

        // Keys that cannot be used: named errors, nothing started.
        for (e2ee, problem) in [([:], "either passphrase or keys"), (["passphrase": "p", "keys": [key0]], "either passphrase or keys"),
                                (["keys": [["uid": "secret", "index": 0, "key": "c2hvcnQ="]]], "16–64 bytes"),
                                (["keys": [["uid": "secret", "index": 256, "key": key0["key"]!]]], "outside 0–255")] as [([String: Any], String)] {
            let (status, json) = try await server.call("/server/v1/channel/record/start", ["channel": "trusted", "uid": "secret", "desc": "camera", "e2ee": e2ee])
            #expect(status == 400 && (json["message"] as? String)?.contains(problem) == true, "\(e2ee): \(status) \(json)")
        }

        let recording = try await EgressRecordingTests.start(server, ["channel": "trusted", "uid": "secret", "desc": "camera", "e2ee": ["keys": [key0]]])
        let id = try #require(recording["recording_id"] as? String)
        try await eventually("2 s recorded") { pusher.framesPushed >= 30 }
        try await Task.sleep(for: .seconds(2))

        // The publisher ratchets; the recorder gets the new key through e2ee/keys.
        keys.setKey(second, for: "secret", index: 1)
        let ratchetedAt = pusher.framesPushed
        let (status, json) = try await server.call("/server/v1/channel/e2ee/keys", ["channel": "trusted", "recording_id": id, "keys": [key1]])
        #expect(status == 200 && json["keys"] as? Int == 1, "\(status) \(json)")
        let (missing, missingJSON) = try await server.call("/server/v1/channel/e2ee/keys", ["channel": "trusted", "recording_id": "RC_nope", "keys": [key1]])
        #expect(missing == 404, "\(missingJSON)")
        try await eventually("4 s after the ratchet") { pusher.framesPushed >= ratchetedAt + 60 }
        let finished = try await EgressRecordingTests.stop(server, recording)
        #expect(finished["status"] as? String == "finished", "\(finished)")

        let file = server.recordings + "/" + (finished["file"] as? String ?? "")
        let probe = try await offPool { try MediaProbe(file) }
        let decoded = try await offPool { try DecodedMediaFile(url: file) }
        let numbers = decoded.frameNumbers
        let after = numbers.filter { $0 > ratchetedAt + 15 }
        print("trusted recorder: ffprobe \(probe.codecs), \(probe.videoFrames ?? -1) frames; \(numbers.count) frames decoded from the file, "
              + "\(after.count) after the ratchet at \(ratchetedAt)")
        // ffprobe reads the file as VP8 and counts every frame that decodes.
        #expect(probe.codecs == ["vp8"] && probe.videoFrames == decoded.videoTimesUs.count, "\(file): \(probe)")
        #expect(frameGaps(numbers).ordered && numbers.count > 60, "\(numbers.count) frames: \(numbers.prefix(10))…")
        #expect(after.count > 20, "the recorder kept decoding after the ratchet: \(after.count) frames")

        await encrypted.channel.leave()
        await server.stop()
    }

    /// A composite handed the channel's passphrase shows everyone: the encrypted camera (decrypted)
    /// and a plain one beside it (read as it is), each in its tile with its frame numbers; and it
    /// publishes its mix in the clear (a recording of it needs no keys).
    @Test func aCompositeWithThePassphraseShowsEveryone() async throws {
        let server = try EgressTestServer()
        // Join order is tile order: the encrypted camera (numbers from 0) first, then the plain one.
        let (encrypted, pusher) = try await Self.encryptedCamera(server, channel: "mcu-e2ee", keys: .sharedKey(passphrase: "p4ss"))
        defer { pusher.stop() }
        let (plain, plainPusher) = try await EgressRecordingTests.publisher(server, uid: "open", channel: "mcu-e2ee", firstNumber: 100_000)
        defer { plainPusher.stop() }
        let (status, json) = try await server.call("/server/v1/channel/composite/start",
                                                   ["channel": "mcu-e2ee", "uid": "mcu", "width": 640, "height": 360, "frame_rate": 15,
                                                    "audio": false, "e2ee": ["passphrase": "p4ss"]])
        #expect(status == 200, "\(json)")
        let viewer = SDKPeer()
        let tiles = TileReader(tiles: [(x: 0, y: 90, width: 320, height: 180), (x: 320, y: 90, width: 320, height: 180)])
        let composite = CompositeViewer(uid: "mcu", tiles: tiles)  // the delegates are held weakly
        viewer.channel.delegates.add(delegate: composite)
        try await viewer.channel.join(url: server.url, token: server.token(uid: "viewer", channel: "mcu-e2ee"))
        try await eventually("the composite is announced") { viewer.channel.remoteTrack(uid: "mcu", desc: "camera_big") != nil }
        #expect(viewer.channel.remoteTrack(uid: "mcu", desc: "camera_big")?.info?.e2ee == nil, "the mix is sent in the clear")
        try await eventually(timeout: 20, "a viewer without keys reads both cameras in the composite (read \((0..<2).map { tiles.numbers(tile: $0).count }))") {
            (0..<2).allSatisfy { Set(tiles.numbers(tile: $0)).count >= 15 }
        }
        for (tile, who) in [(0, "the encrypted camera"), (1, "the plain camera")] {
            let numbers = tiles.numbers(tile: tile)
            print("composite with the passphrase, tile \(tile) (\(who)): \(numbers.count) numbered frames, \(numbers.first ?? -1)…\(numbers.last ?? -1)")
            #expect(numbers.allSatisfy { $0 / 100_000 == tile }, "tile \(tile) shows \(who): \(numbers.prefix(5))")
            #expect(nonDecreasing(numbers) && numbers.last! > numbers.first!, "\(who) advances: \(numbers.prefix(5))…")
        }
        await viewer.channel.leave()
        await plain.channel.leave()
        await encrypted.channel.leave()
        await server.stop()
    }

    /// The trusted recorder with the passphrase records an encrypted two-layer AV1 or VP9 camera
    /// (one L2T3_KEY stream, each spatial layer's frame its own SFrame ciphertext): its engine finds
    /// the layer frames of each picture, decrypts them apart, and the file (AV1 as received, both
    /// layers; VP9 as its top layer shows it) decodes at the top layer's size, one frame per
    /// picture, with the publisher's frame numbers in order.
    @Test(arguments: ["av1", "vp9"])
    func theTrustedRecorderDecryptsAnSVCCamera(codecName: String) async throws {
        let codec = try #require(VideoCodec(encodingName: codecName))
        let server = try EgressTestServer()
        let publisher = SDKPeer(preferredVideoCodec: codec, e2ee: E2EEConfiguration(keyProvider: .sharedKey(passphrase: "p4ss")))
        try await publisher.channel.join(url: server.url, token: server.token(uid: "secret", channel: "svc-e2ee"))
        let video = publisher.engine.createLocalCustomVideoTrack(desc: "camera_big", preset: VideoPreset(width: 320, height: 180, frameRate: 15, maxBitrate: 400_000),
                                                                 simulcast: true)
        try await publisher.channel.publishLocalTrack(video)
        #expect(video.info?.codec?.lowercased() == codecName && video.info?.e2ee == true && video.info?.layers.count == 2, "\(String(describing: video.info))")
        let pusher = try SDKMediaPusher(video: video, audio: nil, width: 320, height: 180, fps: 15)
        defer { pusher.stop() }
        try await eventually("the server knows the camera") {
            let (_, json) = try await server.call("/server/v1/channel/record/start", ["channel": "svc-e2ee", "uid": "secret", "desc": "camera_big"])
            return json["code"] as? Int == 40901
        }
        let recording = try await EgressRecordingTests.start(server, ["channel": "svc-e2ee", "uid": "secret", "desc": "camera_big", "e2ee": ["passphrase": "p4ss"]])
        let startedAt = pusher.framesPushed
        try await eventually(timeout: 20, "4 s recorded") { pusher.framesPushed >= startedAt + 60 }
        let finished = try await EgressRecordingTests.stop(server, recording)
        #expect(finished["status"] as? String == "finished", "\(finished)")

        let file = server.recordings + "/" + (finished["file"] as? String ?? "")
        let decoded = try await offPool { try DecodedMediaFile(url: file) }
        let numbers = decoded.frameNumbers
        let stream = decoded.streams.first(where: \.isVideo)
        print("trusted recorder, \(codec.rawValue) SVC: \(numbers.count) frames decoded (\(numbers.first ?? -1)…\(numbers.last ?? -1)), "
              + "stream \(stream?.codecName ?? "?") \(stream?.width ?? 0)x\(stream?.height ?? 0), \(decoded.videoTimesUs.count) video frames")
        #expect(stream?.codecName == codecName && stream?.width == 320 && stream?.height == 180, "\(String(describing: stream))")
        #expect(frameGaps(numbers).ordered && numbers.count > 30, "\(numbers.count) frames: \(numbers.prefix(10))…")
        let lastFrames = decoded.videoFrameSizes.suffix(30)
        #expect(lastFrames.count == 30 && Set(lastFrames) == ["320x180"], "sizes \(Set(decoded.videoFrameSizes))")

        await publisher.channel.leave()
        await server.stop()
    }
}
