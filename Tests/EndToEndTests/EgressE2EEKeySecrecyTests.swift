import Foundation
import MediaTestSupport
import RTCMedia
import SRTC
import SRTCLab
import SRTCProtocol
import SRTCTestSupport
import TestWait
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The trusted recorder's keys are sealed to its worker (docs/e2ee.md, "The trusted recorder"):
/// a real `srtc-server` process on a data directory, at debug log level, runs a recording handed
/// per-participant keys (one more through `e2ee/keys`), a composite handed a passphrase and a
/// recording of that composite; the keys reach each worker over its own standard input pipe,
/// and no form of them (bytes, hex, base64) is in the data directory (SQLite database, WAL,
/// recordings), the log (the server's and its workers'), or any process's arguments or
/// environment.
@Suite(.serialized) struct EgressE2EEKeySecrecyTests {
    static func token(uid: String, channel: String) -> String {
        let now = Int64(Date().timeIntervalSince1970)
        return AccessToken.sign(TokenClaims(iss: TestServer.appId, sub: uid, iat: now, nbf: now - 5, exp: now + 3600, jti: UUID().uuidString,
                                            grant: ChannelGrant(channel: channel, publish: true, subscribe: true, publishData: true)),
                                key: TestServer.appKey)
    }

    /// `uid` joins `channel` on `server` with `keys` and publishes an encrypted 320×180 numbered camera.
    static func encryptedCamera(_ server: ServerProcess, uid: String, channel: String, keys: E2EEKeyProvider) async throws -> (SDKPeer, SDKMediaPusher) {
        let peer = SDKPeer(e2ee: E2EEConfiguration(keyProvider: keys))
        try await peer.channel.join(url: server.httpBase, token: token(uid: uid, channel: channel))
        let video = peer.engine.createLocalCustomVideoTrack(desc: "camera", preset: VideoPreset(width: 320, height: 180, frameRate: 15, maxBitrate: 300_000))
        try await peer.channel.publishLocalTrack(video)
        return (peer, try SDKMediaPusher(video: video, audio: nil, width: 320, height: 180, fps: 15))
    }

    @Test func theKeysAreNowhereButInTheWorkersMemory() async throws {
        let data = try TemporaryDirectory(prefix: "srtc-sealed")
        defer { data.cleanUp() }
        let server = ServerProcess(dataDir: data.path, arguments: ["--app-id", TestServer.appId, "--app-key", TestServer.appKey, "--log-level", "debug"])
        try await server.start()
        let serverPid = try #require(server.pid)

        // Random secrets: none of their forms can be in a file by chance.
        let key0 = (0..<32).map { _ in UInt8.random(in: 0...255) }, key1 = (0..<32).map { _ in UInt8.random(in: 0...255) }
        let passphrase = "correct horse battery staple " + UUID().uuidString
        let secrets = SecretForms(keys: [key0, key1], passphrase: passphrase)

        // A recording with per-participant keys (key 1 handed later, as after a ratchet) ...
        let keys = E2EEKeyProvider.perParticipant(ratchetWindow: 1)
        keys.setKey(key0, for: "secret", index: 0)
        let (perKey, perKeyPusher) = try await Self.encryptedCamera(server, uid: "secret", channel: "sealed-keys", keys: keys)
        defer { perKeyPusher.stop() }
        try await eventually("the server knows the camera") {
            let (_, json) = try await server.call("/server/v1/channel/record/start", ["channel": "sealed-keys", "uid": "secret", "desc": "camera"])
            return json["code"] as? Int == 40901
        }
        let (recStatus, recJSON) = try await server.call("/server/v1/channel/record/start", [
            "channel": "sealed-keys", "uid": "secret", "desc": "camera",
            "e2ee": ["keys": [["uid": "secret", "index": 0, "key": Data(key0).base64EncodedString()]]]])
        let recording = try #require(recJSON["recording"] as? [String: Any], "\(recStatus) \(recJSON)")
        let recordingId = try #require(recording["recording_id"] as? String)

        // ... and a composite with the passphrase, recorded.
        let (shared, sharedPusher) = try await Self.encryptedCamera(server, uid: "shared", channel: "sealed-pass", keys: .sharedKey(passphrase: passphrase))
        defer { sharedPusher.stop() }
        let (compositeStatus, compositeJSON) = try await server.call("/server/v1/channel/composite/start", [
            "channel": "sealed-pass", "uid": "mcu", "width": 320, "height": 180, "frame_rate": 15, "audio": false, "e2ee": ["passphrase": passphrase]])
        #expect(compositeStatus == 200, "\(compositeJSON)")
        var compositeRecording: [String: Any] = [:]
        try await eventually("the composite, recorded") {
            let (status, json) = try await server.call("/server/v1/channel/record/start", ["channel": "sealed-pass", "kind": "composite", "uid": "mcu"])
            compositeRecording = json["recording"] as? [String: Any] ?? [:]
            return status == 200
        }

        try await eventually("2 s recorded") { perKeyPusher.framesPushed >= 30 }
        try await Task.sleep(for: .seconds(2))
        keys.setKey(key1, for: "secret", index: 1)
        let ratchetedAt = perKeyPusher.framesPushed
        let (handed, handedJSON) = try await server.call("/server/v1/channel/e2ee/keys", [
            "channel": "sealed-keys", "recording_id": recordingId, "keys": [["uid": "secret", "index": 1, "key": Data(key1).base64EncodedString()]]])
        #expect(handed == 200, "\(handedJSON)")

        // While the workers run: each holds its keys' pipe alone, and no argv or environment holds them.
        let workers = ProcessTree.children(of: serverPid).filter { ProcessTree.executable($0)?.hasSuffix("/srtc-egress") == true }
        #expect(workers.count == 3, "a worker per recording and one for the composite: \(workers)")
        for pid in [serverPid] + workers {
            let cmdline = ProcessTree.file(pid, "cmdline"), environ = ProcessTree.file(pid, "environ")
            #expect(!cmdline.isEmpty && !environ.isEmpty, "/proc/\(pid) readable")
            #expect(secrets.found(in: cmdline) == nil && secrets.found(in: environ) == nil,
                    "process \(pid): \(secrets.found(in: cmdline) ?? secrets.found(in: environ) ?? "")")
        }
        for pid in workers {
            #expect(ProcessTree.file(pid, "cmdline").split(separator: 0).count == 1, "the worker \(pid) is started without arguments")
            let input = ProcessTree.descriptor(pid, 0)
            #expect(input?.hasPrefix("pipe:[") == true, "the worker \(pid) reads its task from a pipe: \(input ?? "?")")
            let holders = ([serverPid] + workers).filter { ProcessTree.descriptors($0).contains(input ?? "-") }
            #expect(Set(holders) == [serverPid, pid], "\(input ?? "?") is open in the server and worker \(pid) only, not in \(holders)")
        }
        let running = secrets.scan(directory: data.path)
        #expect(running.leaks.isEmpty, "while running: \(running.leaks)")

        try await eventually("3 s after the ratchet") { perKeyPusher.framesPushed >= ratchetedAt + 45 }
        for stop in [recording, compositeRecording] {
            let (status, json) = try await server.call("/server/v1/channel/record/stop", ["recording_id": stop["recording_id"] as? String ?? ""])
            #expect(status == 200, "\(json)")
        }
        _ = try await server.call("/server/v1/channel/composite/stop", ["channel": "sealed-pass", "uid": "mcu"])
        await perKey.channel.leave()
        await shared.channel.leave()
        await server.stop()

        // The keys were used: both files hold the encrypted cameras' frames (so the scan below
        // looked at a database, log and files that a keyed task wrote).
        let recordedFile = data.path + "/recordings/" + (recording["file"] as? String ?? "")
        let composedFile = data.path + "/recordings/" + (compositeRecording["file"] as? String ?? "")
        let recorded = try await offPool { try DecodedMediaFile(url: recordedFile) }
        let composed = try await offPool { try DecodedMediaFile(url: composedFile) }
        #expect(recorded.frameNumbers.filter { $0 > ratchetedAt + 15 }.count > 10, "decrypted after the ratchet: \(recorded.frameNumbers.suffix(5))")
        #expect(composed.frameNumbers.count > 15, "the composite decrypted the camera: \(composed.frameNumbers.count) numbered frames")

        let stopped = secrets.scan(directory: data.path)
        let log = Array(server.log.utf8)
        print("sealed keys: \(workers.count) workers; scanned \(stopped.files.count) files, \(stopped.bytes) bytes (\(stopped.files.joined(separator: ", "))) "
              + "and \(log.count) bytes of log; \(secrets.needles.count) forms of \(secrets.names)")
        #expect(stopped.leaks.isEmpty, "after the stop: \(stopped.leaks)")
        #expect(secrets.found(in: log) == nil, "the log holds \(secrets.found(in: log) ?? "")")
        // The scan can find what is there: the database holds the recording's id, the log the workers' lines.
        #expect(stopped.files.contains { $0.hasPrefix("srtc.sqlite3") }, "\(stopped.files)")
        #expect(SecretForms.contains(stopped.contents(named: "srtc.sqlite3"), Array(recordingId.utf8)), "the database records \(recordingId)")
        #expect(server.log.contains("srtc-server listening"))
    }
}

/// The forms a secret could leak in: the raw bytes, lower- and upper-case hex, base64 (also
/// without padding, with JSON's escaped `\/`, and URL-safe).
struct SecretForms {
    private(set) var needles: [(name: String, bytes: [UInt8])] = []
    let names: String

    init(keys: [[UInt8]], passphrase: String) {
        names = "\(keys.count) keys and a passphrase"
        for (index, key) in keys.enumerated() { add("key \(index)", key) }
        add("passphrase", Array(passphrase.utf8))
    }

    private mutating func add(_ name: String, _ bytes: [UInt8]) {
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        let base64 = Data(bytes).base64EncodedString().replacingOccurrences(of: "=", with: "")
        let forms = [("bytes", bytes), ("hex", Array(hex.utf8)), ("HEX", Array(hex.uppercased().utf8)), ("base64", Array(base64.utf8)),
                     ("JSON base64", Array(base64.replacingOccurrences(of: "/", with: "\\/").utf8)),
                     ("base64url", Array(base64.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").utf8))]
        for (form, formBytes) in forms { needles.append((name: "\(name) as \(form)", bytes: formBytes)) }
    }

    /// The first form found in `haystack`, by name.
    func found(in haystack: [UInt8]) -> String? {
        needles.first { Self.contains(haystack, $0.bytes) }?.name
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        Data(haystack).range(of: Data(needle)) != nil
    }

    /// Every file under `directory` (database, WAL, recordings, anything else), read whole.
    func scan(directory: String) -> Scan {
        var scan = Scan()
        let enumerator = FileManager.default.enumerator(atPath: directory)
        while let path = enumerator?.nextObject() as? String {
            guard let bytes = FileManager.default.contents(atPath: directory + "/" + path) else { continue }
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: directory + "/" + path, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            scan.files.append(path)
            scan.bytes += bytes.count
            scan.read[path] = [UInt8](bytes)
            if let name = found(in: [UInt8](bytes)) { scan.leaks.append("\(path): \(name)") }
        }
        return scan
    }

    struct Scan {
        var files: [String] = []
        var bytes = 0
        var leaks: [String] = []
        fileprivate var read: [String: [UInt8]] = [:]

        /// The bytes of every scanned file whose name starts with `prefix` (a database and its WAL).
        func contents(named prefix: String) -> [UInt8] {
            read.filter { $0.key.hasPrefix(prefix) }.values.reduce([], +)
        }
    }
}

/// What /proc says about a process.
enum ProcessTree {
    /// The pids whose parent is `pid`.
    static func children(of pid: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { Int32($0) }.filter { child in
            // The parent pid is the second field after the parenthesised command name.
            let stat = String(decoding: file(child, "stat"), as: UTF8.self)
            guard let close = stat.lastIndex(of: ")") else { return false }
            return stat[stat.index(after: close)...].split(separator: " ").dropFirst().first.flatMap { Int32($0) } == pid
        }.sorted()
    }

    /// A /proc file, read to its end (they report size 0).
    static func file(_ pid: Int32, _ name: String) -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: "/proc/\(pid)/\(name)") else { return [] }
        defer { try? handle.close() }
        return [UInt8](handle.readDataToEndOfFile())
    }

    static func executable(_ pid: Int32) -> String? {
        try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
    }

    /// What descriptor `fd` of `pid` is open on ("pipe:[123]", a path...).
    static func descriptor(_ pid: Int32, _ fd: Int) -> String? {
        try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(fd)")
    }

    static func descriptors(_ pid: Int32) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []).compactMap { Int($0).flatMap { descriptor(pid, $0) } }
    }
}
