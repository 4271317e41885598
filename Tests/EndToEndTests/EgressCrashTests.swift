import Foundation
import MediaTestSupport
import RTCNet
import SRTCProtocol
import SRTCTestSupport
import Synchronization
import TestWait
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A recording survives the server's end: SIGTERM finishes the file; `kill -9` leaves a file
/// readable up to the crash, which the next start marks `incomplete`.
@Suite(.serialized) struct EgressCrashTests {
    /// `srtc-server` in its own process on `dataDir` with the test app, so a signal can end it.
    static func server(_ dataDir: String, webhookURL: String? = nil) async throws -> ServerProcess {
        let server = ServerProcess(dataDir: dataDir, arguments: ["--app-id", TestServer.appId, "--app-key", TestServer.appKey,
                                                                 "--log-level", "warn"] + (webhookURL.map { ["--webhook-url", $0] } ?? []))
        try await server.start()
        return server
    }

    static func recordABot(_ server: ServerProcess) async throws -> (BotProcess, [String: Any]) {
        let bot = try BotProcess(url: server.httpBase, channel: "crash", uid: "bot", patternStart: 0)
        var recording: [String: Any] = [:]
        try await eventually("the bot's track, recorded") {
            guard let (status, json) = try? await server.call("/server/v1/channel/record/start",
                                                              ["channel": "crash", "uid": "bot", "desc": "camera_big"]) else { return false }
            recording = json["recording"] as? [String: Any] ?? [:]
            return status == 200
        }
        return (bot, recording)
    }

    /// Waits until the recording on disk decodes to `frames` frames (the bot sends 15 per second).
    static func waitForFrames(_ file: String, _ frames: Int) async throws {
        try await eventually("\(frames) frames recorded in \(file)", poll: .milliseconds(500)) {
            (try? await offPool { try DecodedMediaFile(url: file) })?.frameNumbers.count ?? 0 >= frames
        }
    }

    static func listed(_ server: ServerProcess) async throws -> [String: Any] {
        let (_, json) = try await server.call("/server/v1/channel/record/list", ["channel": "crash"])
        return try #require((json["recordings"] as? [[String: Any]])?.first)
    }

    @Test func sigtermFinishesTheFile() async throws {
        let data = try TemporaryDirectory(prefix: "srtc-sigterm")
        defer { data.cleanUp() }
        let hooks = try TestWebhookReceiver()
        let server = try await Self.server(data.path, webhookURL: hooks.url)
        let (bot, recording) = try await Self.recordABot(server)
        let file = data.path + "/recordings/" + (recording["file"] as? String ?? "")
        try await Self.waitForFrames(file, 45)
        server.signal(SIGTERM)
        await server.waitForExit()
        await bot.stop()
        let probe = try await offPool { try MediaProbe(file) }
        #expect(probe.codecs == ["vp8"])
        // The trailer (cues, duration) is written only by a finished file.
        let duration = probe.duration ?? 0
        #expect(duration > 1.5, "duration \(duration)")

        let again = try await Self.server(data.path, webhookURL: hooks.url)
        let stored = try await Self.listed(again)
        #expect(stored["status"] as? String == "finished", "\(stored)")
        // Its recording_finished, sent before the exit or, stored, by the next run.
        let hook = try await hooks.waitFor("recording_finished")
        #expect(hook.signatureValid && hook.json["data.recording_id"] == recording["recording_id"] as? String)
        #expect(hook.json["data.status"] == "finished" && hook.json["data.size_bytes"] == stored["size_bytes"].map { "\($0)" })
        again.signal(SIGTERM)
        await again.waitForExit()
        // At least once, deduplicated by event_id (server-api.md, "Webhooks"): one event, whichever run sent it.
        #expect(Set(hooks.deliveries.filter { $0.event == "recording_finished" }.compactMap { $0.json["event_id"] }).count == 1)
        await hooks.shutdown()
    }

    @Test func killMinusNineLeavesAReadableFileMarkedIncompleteAtTheNextStart() async throws {
        let data = try TemporaryDirectory(prefix: "srtc-kill9")
        defer { data.cleanUp() }
        let server = try await Self.server(data.path)
        let (bot, recording) = try await Self.recordABot(server)
        let file = data.path + "/recordings/" + (recording["file"] as? String ?? "")
        try await Self.waitForFrames(file, 45)
        // The machine dies: the server stops still (it can record nothing more), its worker and it are killed.
        server.signal(SIGSTOP)
        let workers = EgressWorkers.pids(parent: try #require(server.pid))
        #expect(workers.count == 1)
        for pid in workers { kill(pid, SIGKILL) }
        server.signal(SIGKILL)
        await server.waitForExit()
        await bot.stop()

        let probe = try await offPool { try MediaProbe(file) }
        #expect(probe.codecs == ["vp8"])
        let decoded = try await offPool { try DecodedMediaFile(url: file) }
        #expect(decoded.frameNumbers.count >= 30, "\(decoded.frameNumbers.count) frames readable")
        #expect(frameGaps(decoded.frameNumbers).ordered)

        let hooks = try TestWebhookReceiver()
        let again = try await Self.server(data.path, webhookURL: hooks.url)
        try await eventually("marked incomplete") {
            let stored = try? await Self.listed(again)
            return stored?["status"] as? String == "incomplete"
        }
        let stored = try await Self.listed(again)
        #expect((stored["size_bytes"] as? Int ?? 0) > 10_000 && (stored["duration_ms"] as? Int ?? 0) > 2_000, "\(stored)")
        // The next run tells the backend: the recording ended incomplete, with the same figures.
        let hook = try await hooks.waitFor("recording_finished")
        #expect(hook.signatureValid && hook.json["data.recording_id"] == recording["recording_id"] as? String)
        for field in ["status", "size_bytes", "duration_ms", "ended_at"] {
            #expect(hook.json["data.\(field)"] == stored[field].map { "\($0)" }, "\(field): \(hook.json) vs \(stored)")
        }
        again.signal(SIGTERM)
        await again.waitForExit()
        await hooks.shutdown()
    }
}
