import EgressProtocol
import Foundation
import TestRandom
import Testing

@Suite struct WorkerCodecTests {
    static let live = LiveSettings(hlsDirectory: "/var/lib/srtc/live/app/room", rtmpURL: "rtmp://cdn.example.com/live/key")

    @Test func everyLineRoundTrips() throws {
        let task = WorkerTask(taskId: "CP_1", serverURL: "http://127.0.0.1:7880", channel: "room", token: "t.o.k",
                              composite: CompositeSettings(uid: "mcu", layout: .speaker, width: 640, height: 360), live: Self.live)
        #expect(try WorkerCodec.task(from: WorkerCodec.line(task)) == task)
        let recording = WorkerTask(taskId: "RC_1", serverURL: "http://h:1", channel: "room", token: "t",
                                   recording: RecordingSettings(kind: .track, format: .mp4, path: "/r/x.mp4", uid: "alice", desc: "mic",
                                                                video: false, audio: true, idleTimeoutSeconds: 30))
        #expect(try WorkerCodec.task(from: WorkerCodec.line(recording)) == recording)
        for command in [WorkerCommand.stop, .setLayout(.grid), .startLive(Self.live), .stopLive] {
            #expect(try WorkerCodec.command(from: WorkerCodec.line(command)) == command)
        }
        let result = RecordingResult(bytes: 123_456, durationMs: 10_020, videoFrames: 150, audioFrames: 501, complete: true)
        for event in [WorkerEvent.started, .liveStarted, .liveEnded(error: nil), .liveEnded(error: "rtmp refused"), .finished(result),
                      .failed(code: "storage_failed", message: "disk full"), .ended(reason: "idle")] {
            #expect(try WorkerCodec.event(from: WorkerCodec.line(event)) == event)
        }
    }

    @Test func theWireFormatIsSnakeCase() {
        let line = WorkerCodec.line(.startLive(Self.live))
        #expect(line.contains(#""rtmp_url":"rtmp://cdn.example.com/live/key""#))
        #expect(line.contains(#""hls_directory":"/var/lib/srtc/live/app/room""#))
        #expect(line.contains(#""type":"start_live""#))
        #expect(!line.contains("\n"))
    }

    @Test func badLinesAreRefusedWithTheirReason() {
        #expect(throws: WorkerCodec.DecodeError.malformed) { try WorkerCodec.event(from: "not json") }
        #expect(throws: WorkerCodec.DecodeError.malformed) { try WorkerCodec.event(from: #"{"kind":"started"}"#) }
        #expect(throws: WorkerCodec.DecodeError.unknownType("exploded")) { try WorkerCodec.event(from: #"{"type":"exploded"}"#) }
        #expect(throws: WorkerCodec.DecodeError.invalidData("result")) { try WorkerCodec.event(from: #"{"type":"finished"}"#) }
        #expect(throws: WorkerCodec.DecodeError.malformed) { try WorkerCodec.command(from: String(repeating: "x", count: WorkerCodec.maxLineBytes + 1)) }
        #expect(throws: WorkerCodec.DecodeError.unknownType("stop")) { try WorkerCodec.task(from: WorkerCodec.line(.stop)) }
    }

    @Test func randomLinesNeverCrashTheDecoders() {
        var random = SeededRandom(seed: 0x5EED_E6E5)
        let fragments = [#"{"type":"#, #""finished""#, #","result":{"bytes":"#, "1", "}", "\"", "[", "null", #""started""#,
                         #","code":"#, #""ended""#, "\u{0}", "é", ",", ":"]
        for _ in 0..<2_000 {
            let line = (0..<Int.random(in: 0..<12, using: &random)).map { _ in fragments[Int.random(in: 0..<fragments.count, using: &random)] }.joined()
            _ = try? WorkerCodec.event(from: line)
            _ = try? WorkerCodec.command(from: line)
            _ = try? WorkerCodec.task(from: line)
        }
    }
}
