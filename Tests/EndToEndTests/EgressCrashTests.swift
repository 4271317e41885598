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

/// `srtc-server` as a process of its own, so a test can stop it with a signal and start it again
/// on the same data directory.
final class ServerProcess: @unchecked Sendable {
    let process = Process()
    let dataDir: String
    private let output = Pipe()
    /// The server's standard output, line by line (a class: the reading thread holds it).
    private final class Lines: Sendable { let value = Mutex<[String]>([]) }
    private let outputLines = Lines()
    private(set) var port: UInt16 = 0

    init(dataDir: String, webhookURL: String? = nil) throws {
        self.dataDir = dataDir
        process.executableURL = URL(fileURLWithPath: EgressTestServer.buildDirectory + "/srtc-server")
        process.arguments = ["--data-dir", dataDir, "--http-port", "0", "--udp-port", "0", "--app-id", TestServer.appId,
                             "--app-key", TestServer.appKey, "--web-dir", "", "--log-level", "warn"]
            + (webhookURL.map { ["--webhook-url", $0] } ?? [])
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let handle = output.fileHandleForReading
        let lines = outputLines
        Thread {
            var buffer = Data()
            while case let chunk = handle.availableData, !chunk.isEmpty {
                buffer += chunk
                while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: buffer[..<newline], as: UTF8.self)
                    buffer.removeSubrange(...newline)
                    lines.value.withLock { $0.append(line) }
                }
            }
        }.start()
    }

    /// A test that failed half way still ends its server (and so, by their parent-death signal, its workers).
    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// Waits for the "listening on http://127.0.0.1:PORT" line.
    func ready() async throws {
        try await eventually(timeout: 15, "srtc-server listening") {
            outputLines.value.withLock { $0.contains { $0.contains("listening on http://") } }
        }
        let line = outputLines.value.withLock { $0.first { $0.contains("listening on http://") } } ?? ""
        let address = line.components(separatedBy: "http://").last?.split(separator: " ").first ?? ""
        port = UInt16(address.split(separator: ":").last ?? "") ?? 0
    }

    var url: String { "http://127.0.0.1:\(port)" }

    /// A signed API call.
    func call(_ path: String, _ body: [String: Any]) async throws -> (Int, [String: Any]) {
        let data = Array(try JSONSerialization.data(withJSONObject: body))
        let headers = HTTPHeaders(RequestSignature.headers(appId: TestServer.appId, appKey: TestServer.appKey, method: "POST", pathAndQuery: path,
                                                          body: data, timestamp: Int64(Date().timeIntervalSince1970)))
        let response = try await HTTPClient().post(url + path, headers: headers, body: data)
        return (response.status, (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] ?? [:])
    }

    func signal(_ sig: Int32) { kill(process.processIdentifier, sig) }

    func waitForExit() async throws {
        let process = self.process
        _ = try await offPool { process.waitUntilExit() }
    }
}

/// A recording survives the server's end: SIGTERM finishes the file; `kill -9` leaves a file
/// readable up to the crash, which the next start marks `incomplete`.
@Suite(.serialized) struct EgressCrashTests {
    static func recordABot(_ server: ServerProcess) async throws -> (BotProcess, [String: Any]) {
        let bot = try BotProcess(url: server.url, channel: "crash", uid: "bot", patternStart: 0)
        var recording: [String: Any] = [:]
        try await eventually(timeout: 20, "the bot's track, recorded") {
            guard let (status, json) = try? await server.call("/server/v1/channel/record/start",
                                                              ["channel": "crash", "uid": "bot", "desc": "camera_big"]) else { return false }
            recording = json["recording"] as? [String: Any] ?? [:]
            return status == 200
        }
        return (bot, recording)
    }

    static func listed(_ server: ServerProcess) async throws -> [String: Any] {
        let (_, json) = try await server.call("/server/v1/channel/record/list", ["channel": "crash"])
        return try #require((json["recordings"] as? [[String: Any]])?.first)
    }

    @Test func sigtermFinishesTheFile() async throws {
        let data = try TemporaryDirectory(prefix: "srtc-sigterm")
        defer { data.cleanUp() }
        let hooks = try TestWebhookReceiver()
        let server = try ServerProcess(dataDir: data.path, webhookURL: hooks.url)
        try await server.ready()
        let (bot, recording) = try await Self.recordABot(server)
        try await Task.sleep(for: .seconds(3))
        server.signal(SIGTERM)
        try await server.waitForExit()
        await bot.stop()
        let file = data.path + "/recordings/" + (recording["file"] as? String ?? "")
        let probe = try await offPool { try MediaProbe(file) }
        #expect(probe.codecs == ["vp8"])
        // The trailer (cues, duration) is written only by a finished file.
        let duration = probe.duration ?? 0
        #expect(duration > 1.5, "duration \(duration)")

        let again = try ServerProcess(dataDir: data.path, webhookURL: hooks.url)
        try await again.ready()
        let stored = try await Self.listed(again)
        #expect(stored["status"] as? String == "finished", "\(stored)")
        // Its recording_finished, sent before the exit or, stored, by the next run.
        let hook = try await hooks.waitFor("recording_finished")
        #expect(hook.signatureValid && hook.json["data.recording_id"] == recording["recording_id"] as? String)
        #expect(hook.json["data.status"] == "finished" && hook.json["data.size_bytes"] == stored["size_bytes"].map { "\($0)" })
        again.signal(SIGTERM)
        try await again.waitForExit()
        // At least once, deduplicated by event_id (server-api.md, "Webhooks"): one event, whichever run sent it.
        #expect(Set(hooks.deliveries.filter { $0.event == "recording_finished" }.compactMap { $0.json["event_id"] }).count == 1)
        await hooks.shutdown()
    }

    @Test func killMinusNineLeavesAReadableFileMarkedIncompleteAtTheNextStart() async throws {
        let data = try TemporaryDirectory(prefix: "srtc-kill9")
        defer { data.cleanUp() }
        let server = try ServerProcess(dataDir: data.path)
        try await server.ready()
        let (bot, recording) = try await Self.recordABot(server)
        try await Task.sleep(for: .seconds(4))
        // The machine dies: the server stops still (it can record nothing more), its worker and it are killed.
        server.signal(SIGSTOP)
        let workers = EgressWorkers.pids(parent: server.process.processIdentifier)
        #expect(workers.count == 1)
        for pid in workers { kill(pid, SIGKILL) }
        server.signal(SIGKILL)
        try await server.waitForExit()
        await bot.stop()

        let file = data.path + "/recordings/" + (recording["file"] as? String ?? "")
        let probe = try await offPool { try MediaProbe(file) }
        #expect(probe.codecs == ["vp8"])
        let decoded = try await offPool { try DecodedMediaFile(url: file) }
        #expect(decoded.frameNumbers.count >= 30, "\(decoded.frameNumbers.count) frames readable")
        #expect(frameGaps(decoded.frameNumbers).ordered)

        let hooks = try TestWebhookReceiver()
        let again = try ServerProcess(dataDir: data.path, webhookURL: hooks.url)
        try await again.ready()
        try await eventually(timeout: 5, "marked incomplete") {
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
        try await again.waitForExit()
        await hooks.shutdown()
    }
}
