import TestWait
import EgressServer
import Foundation
import Processes
import MediaTestSupport
import RTCMedia
import RTCNet
import SRTC
import SRTCProtocol
import SRTCServer
import SRTCTestSupport
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A server with the egress module on loopback: its workers are the `srtc-egress` built next to
/// this test runner, recordings go to a temporary directory.
final class EgressTestServer: Sendable {
    let server: TestServer
    let directory: TemporaryDirectory
    private let stopped = Atomic(false)

    /// - Parameter tls: a certificate and key to serve HTTPS/WSS with.
    init(maxTasks: Int = 8, recordingDir: String? = nil, webhookURL: String? = nil, modules: [ServerModuleFactory] = [],
         tls: (certificate: String, key: String)? = nil, ingressPorts: ClosedRange<UInt16>? = nil,
         videoCodecs: VideoCodecPreference = .offerOrder) throws {
        let directory = try TemporaryDirectory(prefix: "srtc-egress")
        self.directory = directory
        server = try TestServer(webhookURL: webhookURL, modules: modules + [EgressModule.factory]) { config in
            config.egress.recordingDir = recordingDir ?? directory.file("recordings")
            config.egress.maxTasks = maxTasks
            config.http.tlsCert = tls?.certificate
            config.http.tlsKey = tls?.key
            config.egress.ingressPorts = ingressPorts
            config.media.videoCodecs = videoCodecs
        }
    }

    var url: String { server.httpBase }
    var recordings: String { directory.file("recordings") }

    func token(uid: String, channel: String) -> String { server.token(uid: uid, channel: channel) }

    /// A signed API call: status and the JSON answer.
    func call(_ path: String, _ body: [String: Any]) async throws -> (status: Int, json: [String: Any]) {
        let (status, json) = try await server.call(path, body)
        return (status, json)
    }

    /// The `composite` object of the first composite under `uid`, as `composite/list` shows it.
    func composite(_ channel: String, uid: String) async throws -> [String: Any]? {
        let (_, json) = try await call("/server/v1/channel/composite/list", ["channel": channel])
        return (json["composites"] as? [[String: Any]])?.first { $0["uid"] as? String == uid }
    }

    func stop() async {
        guard stopped.exchange(true, ordering: .relaxed) == false else { return }
        await server.stop()
        directory.cleanUp()
    }

    /// A test that failed half way (a wait that threw) never reached its `stop()`: its server and
    /// egress workers would run on beside the next tests of the process and starve them on two
    /// cores (CI: after the composite test timed out, the next test's RTMP push got under 20 frames
    /// in 4 s). Stop them here then.
    deinit {
        guard stopped.exchange(true, ordering: .relaxed) == false else { return }
        let server = self.server, directory = self.directory
        Task { await server.stop(); directory.cleanUp() }
    }

    /// The directory holding the built executables (`srtc`, `srtc-server`, `srtc-egress`).
    static var buildDirectory: String { (EgressModule.defaultWorkerPath as NSString).deletingLastPathComponent }
}

/// An `srtc join` bot in its own process: a test pattern numbered from `patternStart` and a tone.
final class BotProcess: Sendable {
    let uid: String
    private let process: ChildProcess

    init(url: String, channel: String, uid: String, patternStart: Int = 0, toneHz: Double = 440, size: String = "320x180", fps: Int = 15,
         extra: [String] = []) throws {
        self.uid = uid
        process = try ChildProcess(EgressTestServer.buildDirectory + "/srtc",
                                   ["join", "--url", url, "--channel", channel, "--uid", uid, "--size", size, "--fps", String(fps),
                                    "--pattern-start", String(patternStart), "--tone-hz", String(toneHz), "--no-subscribe",
                                    "--stats-interval", "0.2"] + extra,
                                   environment: ["SRTC_APP_ID": TestServer.appId, "SRTC_APP_KEY": TestServer.appKey])
    }

    /// A test that failed half way still ends its bots.
    deinit {
        process.signal(SIGTERM)
    }

    /// Leaves cleanly (SIGTERM) and waits for the process to end (SIGKILL after 10 s).
    func stop() async {
        await process.stop(timeout: 10)
    }
}

/// Collects a composite's decoded pictures: the frame number read in each of the given tiles.
final class TileReader: VideoRenderer, @unchecked Sendable {
    private let tiles: Mutex<[(x: Int, y: Int, width: Int, height: Int)]>
    private let readings = Mutex<[[Int?]]>([])

    init(tiles: [(x: Int, y: Int, width: Int, height: Int)]) {
        self.tiles = Mutex(tiles)
    }

    /// Reads other tiles from now on (after a re-layout) and forgets what was read.
    func watch(_ tiles: [(x: Int, y: Int, width: Int, height: Int)]) {
        self.tiles.withLock { $0 = tiles }
        readings.withLock { $0 = [] }
    }

    func render(frame: VideoFrame) {
        let rects = tiles.withLock { $0 }
        let picture = frame.buffer.toI420()
        let numbers = rects.map { r in (try? picture.cropped(x: r.x, y: r.y, width: r.width, height: r.height)).flatMap(TestPatternReader.frameNumber(in:)) }
        readings.withLock { $0.append(numbers) }
    }

    /// Every number read in tile `index`, in order.
    func numbers(tile index: Int) -> [Int] { readings.withLock { $0.compactMap { $0.indices.contains(index) ? $0[index] : nil } } }
    var frames: Int { readings.withLock { $0.count } }
}

/// Sizes of files the workers write.
enum EgressSupervisorFiles {
    static func size(_ path: String) -> Int64? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value
    }
}

/// Whether numbers never go back: a composite may show one input frame twice (no new frame in time).
func nonDecreasing(_ numbers: [Int]) -> Bool { zip(numbers, numbers.dropFirst()).allSatisfy { $0 <= $1 } }
