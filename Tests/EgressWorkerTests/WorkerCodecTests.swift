import EgressProtocol
import Foundation
import SRTCProtocol
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
        let keyed = WorkerTask(taskId: "RC_2", serverURL: "http://h:1", channel: "room", token: "t", recording: recording.recording,
                               e2ee: EgressE2EEKeys(passphrase: "p4ss"))
        #expect(try WorkerCodec.task(from: WorkerCodec.line(keyed)) == keyed)
        let ingress = WorkerTask(taskId: "IN_1", serverURL: "http://h:1", channel: "room", token: "t",
                                 ingress: IngressSettings(kind: .rtmp, uid: "obs", input: "rtmp://0.0.0.0:1935/live/k", streamKey: "k",
                                                          videoBitrate: 1_000_000, simulcast: true))
        #expect(try WorkerCodec.task(from: WorkerCodec.line(ingress)) == ingress)
        let keys = EgressE2EEKeys(keys: [.init(uid: "alice", index: 3, key: Data(repeating: 1, count: 16).base64EncodedString())])
        for command in [WorkerCommand.stop, .setLayout(.grid), .startLive(Self.live), .stopLive, .setE2EEKeys(keys), .setToken("t.o.k2")] {
            #expect(try WorkerCodec.command(from: WorkerCodec.line(command)) == command)
        }
        let result = RecordingResult(bytes: 123_456, durationMs: 10_020, videoFrames: 150, audioFrames: 501, complete: true)
        for event in [WorkerEvent.started, .liveStarted, .liveEnded(error: nil), .liveEnded(error: "rtmp refused"), .finished(result),
                      .failed(code: "storage_failed", message: "disk full"), .ended(reason: "idle"),
                      .inputStarted(IngressInput(videoCodec: "h264", audioCodec: nil, width: 1280, height: 720)), .inputEnded(reason: "eof"),
                      .inputChanged(IngressInput(videoCodec: "h264", audioCodec: "aac", width: 1280, height: 720, videoMode: "reencode")),
                      .caption(Caption(uid: "alice", text: "a cup of coffee", final: true, startMs: 1_765_000_000_000, endMs: 1_765_000_001_500))] {
            #expect(try WorkerCodec.event(from: WorkerCodec.line(event)) == event)
        }
    }

    /// `caption` as docs/egress.md ("Workers") spells it.
    @Test func aCaptionLineIsAsDocumented() throws {
        let line = WorkerCodec.line(.caption(Caption(uid: "bob", text: "hello", final: false, startMs: 10, endMs: 20)))
        #expect(line == #"{"caption":{"end_ms":20,"final":false,"start_ms":10,"text":"hello","uid":"bob"},"type":"caption"}"#)
        #expect(throws: WorkerCodec.DecodeError.invalidData("caption")) { try WorkerCodec.event(from: #"{"type":"caption"}"#) }
        let task = WorkerTask(taskId: "CC_1", serverURL: "http://127.0.0.1:1", channel: "room", token: "t",
                              captions: CaptionSettings(uid: "srtc-captions-x", language: "en-US"))
        #expect(try WorkerCodec.task(from: WorkerCodec.line(task)) == task)
        #expect(WorkerCodec.line(task).contains(#""captions":{"idle_timeout_seconds":60,"language":"en-US","uid":"srtc-captions-x"}"#))
    }

    @Test func theWireFormatIsSnakeCase() {
        let line = WorkerCodec.line(.startLive(Self.live))
        #expect(line.contains(#""rtmp_url":"rtmp://cdn.example.com/live/key""#))
        #expect(line.contains(#""hls_directory":"/var/lib/srtc/live/app/room""#))
        #expect(line.contains(#""type":"start_live""#))
        #expect(!line.contains("\n"))
    }

    /// The trusted recorder's keys: what is refused, and that printing them shows no secret.
    @Test func e2eeKeysAreCheckedAndNeverPrinted() {
        let key = Data(repeating: 0xAB, count: 16).base64EncodedString()
        #expect(EgressE2EEKeys(passphrase: "p4ss").problem == nil)
        #expect(EgressE2EEKeys(keys: [.init(uid: "a", index: 255, key: key)]).problem == nil)
        #expect(EgressE2EEKeys().problem == "e2ee holds either passphrase or keys")
        #expect(EgressE2EEKeys(passphrase: "p", keys: []).problem == "e2ee holds either passphrase or keys")
        #expect(EgressE2EEKeys(passphrase: "").problem == "e2ee.passphrase must be 1–1024 bytes")
        #expect(EgressE2EEKeys(keys: []).problem == "e2ee.keys holds 1–1000 keys")
        #expect(EgressE2EEKeys(keys: [.init(uid: "", index: 0, key: key)]).problem == "e2ee.keys: a key without a valid uid")
        #expect(EgressE2EEKeys(keys: [.init(uid: "a", index: -1, key: key)]).problem == "e2ee.keys: index -1 is outside 0–255")
        #expect(EgressE2EEKeys(keys: [.init(uid: "a", index: 0, key: "not base64!")]).problem == "e2ee.keys: the key of a is not 16–64 bytes of base64")
        #expect(EgressE2EEKeys(keys: [.init(uid: "a", index: 0, key: Data(count: 65).base64EncodedString())]).problem != nil)
        let secret = EgressE2EEKeys(passphrase: "hunter2"), keyed = EgressE2EEKeys(keys: [.init(uid: "a", index: 0, key: key)])
        for shown in ["\(secret)", String(reflecting: secret), "\(keyed)", String(reflecting: keyed)] {
            #expect(!shown.contains("hunter2") && !shown.contains(key), "\(shown)")
        }
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
