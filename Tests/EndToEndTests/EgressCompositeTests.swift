import Foundation
import MediaTestSupport
import RTCMedia
import SRTC
import SRTCTestSupport
import Synchronization
import TestWait
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Watches a channel for a composite's tracks (published under `uid`, a hidden participant) and
/// subscribes to them: video into `tiles`, audio into `audio`. Subscribes again when the
/// composite comes back (a restarted worker publishes new tracks).
final class CompositeViewer: ChannelDelegate, @unchecked Sendable {
    let uid: String
    let tiles: TileReader
    let audio = SDKMediaCollector()
    private let added = Mutex(0)
    private let failures = Mutex<[String]>([])
    /// Subscriptions that failed.
    var errors: [String] { failures.withLock { $0 } }

    init(uid: String, tiles: TileReader) {
        self.uid = uid
        self.tiles = tiles
    }

    /// How many times the composite's video track appeared.
    var videoTracksSeen: Int { added.withLock { $0 } }

    func channel(_ channel: Channel, user: UserInfo, didAddTrack track: TrackInfo) {
        guard track.uid == uid, let remote = channel.remoteTrack(trackId: track.id) else { return }
        if let video = remote as? RemoteVideoTrack {
            video.add(videoRenderer: tiles)
            added.withLock { $0 += 1 }
        }
        if let sound = remote as? RemoteAudioTrack { sound.add(audioRenderer: audio) }
        Task {
            do { try await channel.subscribe(remote) } catch { self.failures.withLock { $0.append("\(track.id): \(error)") } }
        }
    }
}

/// One SDK engine joined to a channel, observed.
struct EgressPeer {
    let engine: SRTCEngine
    let channel: Channel
    let events = SDKEventRecorder()

    init(engine kind: ChannelEngine = .sfu, preferredVideoCodec: VideoCodec = .vp8) {
        engine = SRTCEngine(independent: .init(delegateQueue: DispatchQueue(label: "egress-peer"), logLevel: .off, receiveTimeout: 3,
                                                 mediaBindAddress: "127.0.0.1", preferredVideoCodec: preferredVideoCodec))
        channel = try! engine.createChannel(engine: kind)  // a live engine: this cannot throw
        channel.delegates.add(delegate: events)
    }
}

/// The composite (MCU) end to end: `srtc join` bots, the egress module's worker process, an SDK
/// viewer reading each tile's frame numbers and listening for every bot's tone.
@Suite(.serialized) struct EgressCompositeTests {
    static let quadrants = [(x: 0, y: 0, width: 320, height: 180), (x: 320, y: 0, width: 320, height: 180),
                            (x: 0, y: 180, width: 320, height: 180), (x: 320, y: 180, width: 320, height: 180)]

    @Test func threeBotsInAGridTheirTonesMixedAWorkerRestartAndAReLayout() async throws {
        // Workers already running are not this composite's: a test that failed before this one (in
        // the same process) never stopped its server, and its workers live on (a failed run counted
        // "one worker: [3 pids]" here).
        let leftovers = Set(EgressWorkers.pids())
        func ourWorkers() -> [Int32] { EgressWorkers.pids().filter { !leftovers.contains($0) } }
        let server = try EgressTestServer()
        let tones = [300.0, 700.0, 1_100.0]
        var bots: [BotProcess] = []
        let viewer = EgressPeer()
        let tiles = TileReader(tiles: Self.quadrants)
        let composite = CompositeViewer(uid: "mcu", tiles: tiles)
        viewer.channel.delegates.add(delegate: composite)
        try await viewer.channel.join(url: server.url, token: server.token(uid: "viewer", channel: "mix"))
        for i in 0..<3 {
            bots.append(try BotProcess(url: server.url, channel: "mix", uid: "bot\(i + 1)", patternStart: i * 100_000, toneHz: tones[i]))
            // Join order is tile order: each bot is in before the next starts.
            try await viewer.events.wait(for: "track+ bot\(i + 1) camera_big")
        }

        let (status, json) = try await server.call("/server/v1/channel/composite/start",
                                                   ["channel": "mix", "uid": "mcu", "width": 640, "height": 360, "frame_rate": 15])
        #expect(status == 200, "\(json)")
        #expect((json["composite"] as? [String: Any])?["status"] as? String == "running")
        try await viewer.events.wait(for: "track+ mcu camera_big")
        // A hidden participant: in no user list, not counted.
        #expect(!viewer.channel.users.contains { $0.uid == "mcu" })
        #expect(viewer.channel.users.count == 3)
        try await eventually("user_count 4") { viewer.channel.info?.userCount == 4 }

        // Each tile shows its own bot's frames, advancing; the fourth tile is black.
        try await eventually("frames in three tiles (read \((0..<3).map { tiles.numbers(tile: $0).count }) of \(tiles.frames) pictures)") { (0..<3).allSatisfy { tiles.numbers(tile: $0).count >= 10 } }
        for i in 0..<3 {
            let numbers = tiles.numbers(tile: i)
            #expect(numbers.allSatisfy { $0 / 100_000 == i }, "tile \(i): \(numbers.prefix(5))")
            #expect(nonDecreasing(numbers) && numbers.last! > numbers.first!, "tile \(i) advances")
        }
        #expect(tiles.numbers(tile: 3).isEmpty)
        // The mix holds all three tones.
        try await eventually("2 s of mixed audio") { composite.audio.samples.count >= 96_000 }
        let mix = Array(composite.audio.samples.suffix(48_000))
        let floor = [500.0, 900.0, 1_500.0].map { FrequencyEstimator.goertzelPower(mix, frequency: $0, sampleRate: 48_000) }.max()!
        for hz in tones {
            let power = FrequencyEstimator.goertzelPower(mix, frequency: hz, sampleRate: 48_000)
            #expect(power > 20 * floor, "\(hz) Hz at \(power), floor \(floor)")
        }

        // The worker dies: the supervisor starts another, whose composite the viewer gets again.
        let workers = ourWorkers()
        #expect(workers.count == 1, "one worker: \(workers)")
        for pid in workers { kill(pid, SIGKILL) }
        let before = tiles.numbers(tile: 0).last ?? 0
        // What the supervisor last said, for the failure message (which part did not come back).
        var state: [String: Any] = [:]
        try await eventually("the composite back after its worker died: composite \(state), video tracks seen \(composite.videoTracksSeen), tile 0 at \(tiles.numbers(tile: 0).last ?? -1) (needs > \(before + 15)), \(tiles.frames) pictures, failed subscriptions \(composite.errors), viewer events \(viewer.events.events.filter { !$0.hasPrefix("quality") }.suffix(8))") {
            state = (try? await server.composite("mix", uid: "mcu")) ?? [:]
            let restarts = state["restarts"] as? Int ?? 0
            return restarts >= 1 && composite.videoTracksSeen >= 2 && (tiles.numbers(tile: 0).last ?? 0) > before + 15
        }
        #expect(ourWorkers().count == 1 && ourWorkers() != workers)

        // Bot 2 leaves: two tiles side by side, each letterboxed in its half.
        await bots[1].stop()
        let grid = [(x: 0, y: 90, width: 320, height: 180), (x: 320, y: 90, width: 320, height: 180)]
        tiles.watch(grid)
        // Pictures of the old grid still come until the worker lays out again (the right tile then
        // read bot 1's numbers from the old top-right tile): wait for the new grid, then read anew.
        try await eventually("bot 3 in the right half") { tiles.numbers(tile: 1).contains { $0 >= 200_000 } }
        tiles.watch(grid)
        try await eventually("the grid of two") { tiles.numbers(tile: 0).count >= 5 && tiles.numbers(tile: 1).count >= 5 }
        #expect(tiles.numbers(tile: 0).allSatisfy { $0 < 100_000 })
        #expect(tiles.numbers(tile: 1).allSatisfy { $0 >= 200_000 })

        let (stopped, answer) = try await server.call("/server/v1/channel/composite/stop", ["channel": "mix", "uid": "mcu"])
        #expect(stopped == 200 && (answer["composite"] as? [String: Any])?["status"] as? String == "stopped")
        try await viewer.events.wait(for: "track- mcu camera_big")
        try await eventually("no worker left") { ourWorkers().isEmpty }
        for bot in bots { await bot.stop() }
        await viewer.channel.leave()
        await server.stop()
    }
}
