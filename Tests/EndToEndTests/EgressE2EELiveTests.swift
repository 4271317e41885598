import Foundation
import MediaTestSupport
import Processes
import RTCMedia
import SRTC
import SRTCLab
import SRTCTestSupport
import TestWait
import Testing

/// Live streams follow the composite in an end-to-end encrypted channel (docs/e2ee.md, "The
/// trusted recorder"): an RTMP push, received by Debian's ffmpeg, of a composite handed the
/// passphrase shows the encrypted camera decrypted in its tile; without keys the composite, and
/// so its stream, leaves the encrypted camera out and shows the rest of the channel.
@Suite(.serialized) struct EgressE2EELiveTests {
    /// The composite's two tiles at 640×360: the first user (the encrypted camera) left, the second right.
    static let tiles = [(x: 0, y: 90, width: 320, height: 180), (x: 320, y: 90, width: 320, height: 180)]

    /// An encrypted camera numbered from 0 and a plain one from 100 000 in `channel`, a 640×360
    /// composite of them under "mcu" (`e2ee` its keys, if any), pushed live over RTMP to an ffmpeg
    /// that copies what it receives into a file; `check` reads that file once it holds `frames`
    /// numbered frames (in the tiles with keys, in the whole picture without).
    static func pushComposite(channel: String, e2ee: [String: Any]?, until enough: @escaping @Sendable (DecodedMediaFile) -> Bool,
                              check: (DecodedMediaFile, _ encryptedFramesPushed: Int) throws -> Void) async throws {
        let server = try EgressTestServer()
        // Join order is tile order: the encrypted camera first, then the plain one.
        let (encrypted, pusher) = try await EgressE2EETests.encryptedCamera(server, channel: channel, keys: .sharedKey(passphrase: "p4ss"))
        defer { pusher.stop() }
        let (plain, plainPusher) = try await EgressRecordingTests.publisher(server, uid: "open", channel: channel, firstNumber: 100_000)
        defer { plainPusher.stop() }
        var start: [String: Any] = ["channel": channel, "uid": "mcu", "width": 640, "height": 360, "frame_rate": 15, "audio": false]
        start["e2ee"] = e2ee
        let (status, json) = try await server.call("/server/v1/channel/composite/start", start)
        #expect(status == 200, "\(json)")

        let (receiver, received) = try await EgressLiveTests.pushToFFmpeg(server, channel: channel, uid: "mcu")
        try await eventually(timeout: 40, "the receiver has enough numbered frames", poll: .milliseconds(500)) {
            (try? await offPool { try DecodedMediaFile(url: received, tiles: Self.tiles) }).map(enough) ?? false
        }
        let (stopped, _) = try await server.call("/server/v1/channel/live/stop", ["channel": channel, "uid": "mcu"])
        #expect(stopped == 200)
        _ = try await offPool { receiver.waitUntilExit() }

        // ffprobe reads the stream as H.264 and counts frames that decode.
        let probe = try await offPool { try MediaProbe(received) }
        #expect(probe.codecs.contains("h264") && (probe.videoFrames ?? 0) > 30, "\(received): \(probe)")
        let decoded = try await offPool { try DecodedMediaFile(url: received, tiles: Self.tiles) }
        #expect(decoded.videoFrameSizes.last == "640x360", "\(Set(decoded.videoFrameSizes))")
        try check(decoded, pusher.framesPushed)
        await plain.channel.leave()
        await encrypted.channel.leave()
        await server.stop()
    }

    @Test func aLiveStreamOfACompositeWithThePassphraseShowsTheEncryptedCamera() async throws {
        try await Self.pushComposite(channel: "live-e2ee", e2ee: ["passphrase": "p4ss"],
                                     until: { decoded in decoded.tileNumbers.allSatisfy { Set($0).count >= 20 } }) { decoded, _ in
            for (tile, who) in [(0, "the encrypted camera"), (1, "the plain camera")] {
                let numbers = decoded.tileNumbers[tile]
                print("live stream with the passphrase, tile \(tile) (\(who)): \(numbers.count) numbered frames, "
                      + "\(numbers.first ?? -1)…\(numbers.last ?? -1), of \(decoded.videoTimesUs.count) frames")
                #expect(numbers.allSatisfy { $0 / 100_000 == tile }, "tile \(tile) shows \(who): \(numbers.prefix(5))")
                #expect(nonDecreasing(numbers) && numbers.last! > numbers.first!, "\(who) advances: \(numbers.prefix(5))…")
            }
        }
    }

    /// Without keys there is no error: the composite (docs/e2ee.md) leaves the encrypted camera
    /// out, so the plain camera, alone, fills the picture of the stream.
    @Test func withoutKeysTheLiveStreamLeavesTheEncryptedCameraOut() async throws {
        try await Self.pushComposite(channel: "live-no-keys", e2ee: nil, until: { Set($0.frameNumbers).count >= 30 }) { decoded, encryptedPushed in
            let numbers = decoded.frameNumbers
            print("live stream without keys: \(numbers.count) numbered frames in the whole picture, \(numbers.first ?? -1)…\(numbers.last ?? -1), "
                  + "tiles read \(decoded.tileNumbers.map(\.count)); the encrypted camera pushed \(encryptedPushed) frames meanwhile")
            #expect(encryptedPushed > 30, "the encrypted camera was sending all along")
            #expect(numbers.allSatisfy { $0 >= 100_000 }, "only the plain camera: \(numbers.filter { $0 < 100_000 }.prefix(5))")
            #expect(nonDecreasing(numbers) && numbers.last! > numbers.first!)
        }
    }
}
