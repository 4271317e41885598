import Foundation
import Processes
import MediaTestSupport
import RTCMedia
import SRTC
import SRTCTestSupport
import TestWait
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Refused egress requests: each gets its documented error, and the SFU and the tasks already
/// running go on untouched.
@Suite(.serialized) struct EgressBadInputTests {
    static func expectError(_ server: EgressTestServer, _ path: String, _ body: [String: Any], _ code: Int, _ status: Int,
                            sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let (got, json) = try await server.call(path, body)
        #expect(got == status && json["code"] as? Int == code, "\(path) \(body): \(got) \(json)", sourceLocation: sourceLocation)
    }

    @Test func refusalsAreDocumentedAndLeaveEverythingElseRunning() async throws {
        let server = try EgressTestServer(maxTasks: 2)
        let (publisher, pusher) = try await EgressRecordingTests.publisher(server, uid: "alice", channel: "ok")
        let viewer = EgressPeer()
        let subscriber = SDKAutoSubscriber()
        viewer.channel.delegates.add(delegate: subscriber)
        try await viewer.channel.join(url: server.url, token: server.token(uid: "bob", channel: "ok"))
        let start = "/server/v1/channel/composite/start", record = "/server/v1/channel/record/start"

        try await Self.expectError(server, start, ["channel": "nobody-here", "uid": "mcu"], 40401, 404)
        try await Self.expectError(server, start, ["channel": "ok", "uid": "mcu", "width": 641], 40002, 400)
        try await Self.expectError(server, start, ["channel": "ok", "uid": "mcu", "frame_rate": 0], 40002, 400)
        try await Self.expectError(server, start, ["channel": "ok", "uid": "mcu", "layout": "spiral"], 40001, 400)
        try await Self.expectError(server, start, ["channel": "..", "uid": "mcu"], 40002, 400)
        try await Self.expectError(server, start, ["channel": "ok", "uid": "alice"], 40902, 409)
        try await Self.expectError(server, record, ["channel": "nobody-here", "uid": "alice", "desc": "mic"], 40401, 404)
        try await Self.expectError(server, record, ["channel": "ok", "track_id": "TR_nosuchtrack"], 40401, 404)
        try await Self.expectError(server, record, ["channel": "ok", "uid": "alice", "desc": "screen"], 40401, 404)
        try await Self.expectError(server, record, ["channel": "ok", "kind": "composite", "uid": "mcu"], 40401, 404)
        try await Self.expectError(server, record, ["channel": "ok", "uid": "alice", "desc": "mic", "format": "avi"], 40001, 400)
        try await Self.expectError(server, "/server/v1/channel/record/stop", ["recording_id": "RC_nosuch"], 40401, 404)
        try await Self.expectError(server, "/server/v1/channel/live/start", ["channel": "ok", "uid": "mcu"], 40401, 404)

        let (ok, _) = try await server.call(start, ["channel": "ok", "uid": "mcu", "width": 320, "height": 180, "frame_rate": 15])
        #expect(ok == 200)
        try await Self.expectError(server, start, ["channel": "ok", "uid": "mcu"], 40902, 409)
        try await Self.expectError(server, "/server/v1/channel/live/start", ["channel": "ok", "uid": "mcu", "rtmp_url": "http://x/y"], 40002, 400)
        try await Self.expectError(server, "/server/v1/channel/live/start", ["channel": "ok", "uid": "mcu", "hls": false], 40002, 400)
        let recording = try await EgressRecordingTests.start(server, ["channel": "ok", "uid": "alice", "desc": "mic"])
        try await Self.expectError(server, record, ["channel": "ok", "uid": "alice", "desc": "mic"], 40902, 409)
        // Two tasks run, the limit of this node.
        try await Self.expectError(server, record, ["channel": "ok", "uid": "alice", "desc": "camera_big"], 42901, 429)
        try await Self.expectError(server, start, ["channel": "ok", "uid": "mcu2"], 42901, 429)

        // Nothing else noticed: bob still decodes alice, the composite runs, the recording records.
        let decoded = subscriber.collector.numbers.count
        try await eventually("bob still receiving") { subscriber.collector.numbers.count > decoded + 15 }
        #expect((try await server.composite("ok", uid: "mcu"))?["status"] as? String == "running")
        let file = server.recordings + "/" + (recording["file"] as? String ?? "")
        try await eventually("the recording writing") { (EgressSupervisorFiles.size(file) ?? 0) > 2_000 }
        let finished = try await EgressRecordingTests.stop(server, recording)
        #expect(finished["status"] as? String == "finished", "\(finished)")
        pusher.stop()
        await viewer.channel.leave()
        await publisher.channel.leave()
        await server.stop()
    }

    @Test func aRecordingDirectoryThatCannotBeWrittenIsStorageFailed() async throws {
        let blocker = try TemporaryDirectory(prefix: "srtc-blocked")
        defer { blocker.cleanUp() }
        // A regular file where a directory is needed: nothing can be created below it (even as root).
        _ = FileManager.default.createFile(atPath: blocker.file("file"), contents: Data("x".utf8))
        let server = try EgressTestServer(recordingDir: blocker.file("file") + "/recordings")
        let (publisher, pusher) = try await EgressRecordingTests.publisher(server, uid: "alice", channel: "ro")
        try await Self.expectError(server, "/server/v1/channel/record/start", ["channel": "ro", "uid": "alice", "desc": "mic"], 50701, 507)
        pusher.stop()
        await publisher.channel.leave()
        await server.stop()
    }

    @Test func aDiskThatFillsFailsTheRecordingAndNothingElse() async throws {
        // A 256 KiB tmpfs as the recording directory (the tests run as root, as CI does).
        let mountPoint = try TemporaryDirectory(prefix: "srtc-full")
        defer { mountPoint.cleanUp() }
        let mounted = try await offPool { try ChildProcess.run(["/bin/mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", mountPoint.path]) }
        try #require(mounted.status == 0, "mounting a small tmpfs needs root: \(mounted.output)")
        defer { _ = try? ChildProcess.run(["/bin/umount", "-l", mountPoint.path]) }
        let server = try EgressTestServer(recordingDir: mountPoint.path)
        let (publisher, pusher) = try await EgressRecordingTests.publisher(server, uid: "alice", channel: "full")
        let (ok, _) = try await server.call("/server/v1/channel/composite/start",
                                            ["channel": "full", "uid": "mcu", "width": 320, "height": 180, "frame_rate": 15])
        #expect(ok == 200)
        let recording = try await EgressRecordingTests.start(server, ["channel": "full", "uid": "alice", "desc": "camera_big"])
        // 400 kbps fills 256 KiB in about five seconds.
        var final: [String: Any] = [:]
        try await eventually("the recording failing on the full disk") {
            let (_, json) = (try? await server.call("/server/v1/channel/record/list", ["channel": "full"])) ?? (0, [:])
            final = (json["recordings"] as? [[String: Any]])?.first { $0["recording_id"] as? String == recording["recording_id"] as? String } ?? [:]
            return final["status"] as? String == "failed"
        }
        #expect((final["error"] as? String ?? "").hasPrefix("storage_failed"), "\(final)")
        #expect((try await server.composite("full", uid: "mcu"))?["status"] as? String == "running")
        pusher.stop()
        await publisher.channel.leave()
        await server.stop()
    }
}
