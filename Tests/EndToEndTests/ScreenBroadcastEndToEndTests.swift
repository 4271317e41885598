import Foundation
import Processes
import RTCMedia
import SRTC
import SRTCTestSupport
import Synchronization
import TestWait
import Testing

/// A screen broadcast from another process, as an iOS broadcast extension sends it: `srtc
/// broadcast` (its own process) hands numbered frames and a tone to the host app's socket, the
/// host publishes them, and another participant decodes the frame numbers and hears the tone
/// through the SFU. `stopScreenRecord()` ends the sender process.
@Suite(.serialized) struct ScreenBroadcastEndToEndTests {
    final class Changes: SRTCEngineDelegate, @unchecked Sendable {
        let seen = Mutex<[Bool]>([])
        func engine(_ engine: SRTCEngine, screenRecordDidChange broadcasting: Bool) { seen.withLock { $0.append(broadcasting) } }
        var all: [Bool] { seen.withLock { $0 } }
    }

    @Test func framesFromAnotherProcessReachASubscriberThroughTheSFU() async throws {
        let server = try SDKTestServer()
        let a = SRTCEngine(independent: .init(delegateQueue: DispatchQueue(label: "broadcast-a"), logLevel: .off, mediaBindAddress: "127.0.0.1"))
        let b = SRTCEngine(independent: .init(delegateQueue: DispatchQueue(label: "broadcast-b"), logLevel: .off, mediaBindAddress: "127.0.0.1"))
        let changes = Changes()
        a.delegates.add(delegate: changes)
        let channelA = try a.createChannel(), channelB = try b.createChannel()
        let subscriber = SDKAutoSubscriber()
        channelB.delegates.add(delegate: subscriber)
        try await channelA.join(url: server.url, token: server.token(uid: "host", channel: "broadcast"))
        try await channelB.join(url: server.url, token: server.token(uid: "viewer", channel: "broadcast"))

        let path = NSTemporaryDirectory() + "srtc-bc-e2e-\(UUID().uuidString.prefix(8)).sock"
        let screen = try a.startScreenRecordListening(socketPath: path, preset: VideoPreset(width: 320, height: 180, frameRate: 15, maxBitrate: 400_000))
        try await channelA.publishLocalTrack(screen)
        try await channelA.publishLocalTrack(try #require(a.screenRecordAudioTrack))
        // The same broadcast in a second channel of the host's engine.
        let channelA2 = try a.createChannel()
        try await channelA2.join(url: server.url, token: server.token(uid: "host", channel: "broadcast-2"))
        try await channelA2.publishLocalTrack(screen)

        let sender = try ChildProcess(EgressTestServer.buildDirectory + "/srtc",
                                      ["broadcast", "--socket", path, "--size", "320x180", "--fps", "15", "--pattern-start", "1000", "--tone-hz", "440"],
                                      pipeOutput: true)
        defer { sender.signal(SIGTERM) }

        try await eventually("the broadcast started") { changes.all == [true] && a.isScreenRecording }
        try await eventually(timeout: 20, "broadcast frames decoded by the viewer") { Set(subscriber.collector.numbers).count >= 20 }
        let numbers = subscriber.collector.numbers
        #expect(numbers.allSatisfy { $0 >= 1000 }, "numbers \(numbers)")
        #expect(frameGaps(numbers).ordered, "numbers \(numbers)")
        #expect(subscriber.collector.sizes.allSatisfy { $0 == (320, 180) })
        try await eventually(timeout: 20, "the broadcast's audio heard") { subscriber.collector.toneFrequency.map { abs($0 - 440) < 10 } ?? false }

        // The host ends the broadcast: the sender process hears it and exits; the host listens on.
        a.stopScreenRecord()
        let status = await sender.waitForExit(timeout: 30)
        #expect(status == 0, "the sender exited")
        // Read once it has exited (what it prints fits the pipe), so a sender that hangs fails the
        // test instead of blocking the read.
        let printed = status == -1 ? "" : await onThread { String(decoding: sender.output!.readDataToEndOfFile(), as: UTF8.self) }
        #expect(printed.contains("connected to \(path)") && printed.contains("stopped by the host after"), "\(printed)")
        try await eventually("the broadcast ended") { changes.all == [true, false] && !a.isScreenRecording }
        #expect(a.screenRecordTrack === screen)
        // Sharing stopped on every channel of the process (seed 000): unpublished in both, and the
        // viewer sees the host's screen tracks go; the host still listens.
        try await eventually("unpublished in both channels") { channelA.localTracks.isEmpty && channelA2.localTracks.isEmpty }
        try await eventually("the viewer sees the screen tracks go") {
            channelB.remoteTrack(uid: "host", desc: "screen") == nil && channelB.remoteTrack(uid: "host", desc: "screen_audio") == nil
        }
        #expect(a.screenRecordTrack === screen)
        await channelA2.leave()

        a.stopScreenRecordListening()
        await channelA.leave()
        await channelB.leave()
        await a.destroy()
        await b.destroy()
        await server.stop()
    }
}
