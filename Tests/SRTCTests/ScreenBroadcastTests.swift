import Foundation
import RTCMedia
@testable import SRTCCore
import Synchronization
import TestWait
import Testing

/// A screen broadcast from another process, as iOS's broadcast extension does it, over a real
/// Unix socket: the host's screen track gets the frames in order, `stopScreenRecord()` reaches the extension, the host keeps listening and refuses bad streams.
@Suite(.serialized) struct ScreenBroadcastTests {
    final class Recorder: SRTCEngineDelegate, TrackDelegate, VideoRenderer, @unchecked Sendable {
        let state = Mutex((changes: [Bool](), numbers: [Int](), trackEvents: [String]()))
        func engine(_ engine: SRTCEngine, screenRecordDidChange broadcasting: Bool) { state.withLock { $0.changes.append(broadcasting) } }
        func screenBroadcastDidStart(_ track: Track) { state.withLock { $0.trackEvents.append("start \(track.desc)") } }
        func screenBroadcastDidFinish(_ track: Track, reason: String) { state.withLock { $0.trackEvents.append("finish \(reason)") } }
        var trackEvents: [String] { state.withLock { $0.trackEvents } }
        func render(frame: VideoFrame) {
            let number = TestPatternReader.frameNumber(in: frame) ?? -1
            state.withLock { $0.numbers.append(number) }
        }
        var changes: [Bool] { state.withLock { $0.changes } }
        var numbers: [Int] { state.withLock { $0.numbers } }
    }

    static func socketPath() -> String { NSTemporaryDirectory() + "srtc-bc-\(UUID().uuidString.prefix(8)).sock" }

    @Test func theExtensionsFramesReachTheScreenTrackAndStopReachesTheExtension() async throws {
        let engine = SRTCEngine(independent: .init(delegateQueue: DispatchQueue(label: "broadcast"), logLevel: .off))
        let recorder = Recorder()
        engine.delegates.add(delegate: recorder)
        let path = Self.socketPath()
        let screen = try engine.startScreenRecordListening(socketPath: path)
        #expect(try engine.startScreenRecordListening(socketPath: path) === screen)   // idempotent
        #expect(screen.desc == "screen" && engine.screenRecordTrack === screen)
        screen.add(videoRenderer: recorder)
        screen.delegates.add(delegate: recorder)
        #expect(engine.screenRecordAudioTrack?.desc == "screen_audio")

        let stopped = Atomic<Int>(0)
        let sender = try BroadcastSender(path: path) { stopped.add(1, ordering: .relaxed) }
        try await eventually("the broadcast started") { recorder.changes == [true] && engine.isScreenRecording }
        let pattern = try TestPatternGenerator(width: 160, height: 90)
        for n in 0..<30 { #expect(sender.send(frame: pattern.videoFrame(number: n))) }
        try await eventually("30 frames on the screen track") { recorder.numbers.count == 30 }
        #expect(recorder.numbers == Array(0..<30))

        // The host ends the broadcast: the extension hears it; the host goes on listening.
        engine.stopScreenRecord()
        try await eventually("the extension told to stop") { stopped.load(ordering: .relaxed) == 1 }
        sender.finish()
        try await eventually("the broadcast ended") { recorder.changes == [true, false] && !engine.isScreenRecording }
        let again = try BroadcastSender(path: path) {}
        try await eventually("a second broadcast") { recorder.changes == [true, false, true] }
        again.send(frame: pattern.videoFrame(number: 500))
        try await eventually("its frame") { recorder.numbers.last == 500 }
        again.finish()
        try await eventually("ended again") { recorder.changes.count == 4 }
        // An extension that goes away without a word (killed) ends its broadcast too.
        var killed: BroadcastSender? = try BroadcastSender(path: path) {}
        try await eventually("a third broadcast") { recorder.changes.count == 5 }
        killed = nil
        _ = killed
        try await eventually("ended by the disconnection") { recorder.changes == [true, false, true, false, true, false] }
        // The track's events say why each ended: this app, the extension, the disconnection.
        try await eventually("the track's events") { recorder.trackEvents.count == 6 }
        #expect(recorder.trackEvents == ["start screen", "finish stopped", "start screen", "finish finished", "start screen", "finish disconnected"])

        engine.stopScreenRecordListening()
        #expect(engine.screenRecordTrack == nil)
        #expect(throws: SRTCError.self) { try BroadcastSender(path: path) {} }
        await engine.destroy()
    }

    @Test func aStreamThatIsNotABroadcastIsDroppedAndListeningGoesOn() async throws {
        let engine = SRTCEngine(independent: .init(delegateQueue: DispatchQueue(label: "broadcast"), logLevel: .off))
        let recorder = Recorder()
        engine.delegates.add(delegate: recorder)
        let path = Self.socketPath()
        let screen = try engine.startScreenRecordListening(socketPath: path)
        screen.add(videoRenderer: recorder)

        // Garbage: a length far above the limit. The host drops that connection.
        let intruder = try BroadcastSocket.connect(path: path)
        #expect(intruder.write([0xFF, 0xFF, 0xFF, 0xFF, 2]))
        var byte: [UInt8] = [0]
        try await eventually("the intruder disconnected") {
            intruder.wait(timeoutMs: 0) && byte.withUnsafeMutableBytes { intruder.read(into: $0) } == 0
        }
        // Media before the hello is not a broadcast either.
        let rude = try BroadcastSocket.connect(path: path)
        var bytes: [UInt8] = []
        BroadcastMessage.video(try TestPatternGenerator(width: 64, height: 48).videoFrame(number: 1)).encode(into: &bytes)
        #expect(rude.write(bytes))
        try await eventually("the rude client disconnected") {
            rude.wait(timeoutMs: 0) && byte.withUnsafeMutableBytes { rude.read(into: $0) } == 0
        }
        #expect(recorder.numbers.isEmpty && recorder.changes.isEmpty)

        let sender = try BroadcastSender(path: path) {}
        sender.send(frame: try TestPatternGenerator(width: 64, height: 48).videoFrame(number: 7))
        try await eventually("a real broadcast still works") { recorder.numbers == [7] }
        sender.finish()
        engine.stopScreenRecordListening()
        // A socket path that cannot be used is a system error.
        #expect(throws: SRTCError.self) { try engine.startScreenRecordListening(socketPath: "/nonexistent-dir/x.sock") }
        await engine.destroy()
        #expect(engine.screenRecordTrack == nil)
    }
}
