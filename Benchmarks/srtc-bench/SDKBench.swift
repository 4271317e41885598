// SDK benchmarks: the cost of sending and receiving a 720p frame through the SRTC SDK, the time
// from join to the first decoded remote frame over loopback, and the memory of an idle joined
// engine. Figures are printed, never asserted.
import Foundation
import Processes
import RTCMedia
@_spi(Benchmark) import SRTC
import SRTCProtocol
import SRTCServer
import Synchronization

/// Runs the SDK benchmarks and prints their figures.
func runSDKBenchmarks() {
    print("== sdk")
    let done = DispatchSemaphore(value: 0)
    Task {
        do {
            try await SDKBench().run()
        } catch {
            print("sdk benchmark failed: \(error)")
        }
        done.signal()
    }
    done.wait()
}

/// The publisher's uplink with dynacast on and off when every subscriber watches small tiles.
func runDynacastBenchmarks() {
    print("== dynacast")
    do { try blocking { try await SDKBench().runDynacast() } } catch { print("dynacast benchmark failed: \(error)") }
}

private struct SDKBench {
    static let appId = "app_bench", appKey = "key_bench_0123456789"

    func run() async throws {
        let server = try startServer()
        defer { Task { await server.shutdown() } }
        let url = "http://127.0.0.1:\(server.httpPort)"
        try await idleMemory(url: url)
        try await encodeAndSend(url: url, desc: "canvas")
        try await encodeAndSend(url: url, desc: "camera_big")
        try await receiveAndDecode()
        try await joinToFirstFrame(url: url)
        await server.shutdown()
    }

    /// Only the dynacast uplink figures (`srtc-bench dynacast`).
    func runDynacast() async throws {
        let server = try startServer()
        defer { Task { await server.shutdown() } }
        try await dynacastUplink(url: "http://127.0.0.1:\(server.httpPort)")
        await server.shutdown()
    }

    private func startServer() throws -> ServerApp {
        var config = ServerConfig()
        config.dataDir = ":memory:"
        config.httpPort = 0
        config.media.udpPort = 0
        config.appId = Self.appId
        config.appKey = Self.appKey
        config.http.threads = 1
        config.logLevel = "error"
        let app = try ServerApp(config: config)
        try app.start()
        return app
    }

    private func token(_ uid: String, _ channel: String) -> String {
        let now = Int64(Date().timeIntervalSince1970)
        return AccessToken.sign(TokenClaims(iss: Self.appId, sub: uid, iat: now, nbf: now, exp: now + 3600, jti: UUID().uuidString,
                                            grant: ChannelGrant(channel: channel)), key: Self.appKey)
    }

    private func engine() -> SRTCEngine {
        SRTCEngine(independent: .init(delegateQueue: DispatchQueue(label: "bench-events"), logLevel: .off, mediaBindAddress: "127.0.0.1"))
    }

    /// Resident memory of the process (Linux /proc; 0 elsewhere), in KiB.
    private func residentKiB() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return 0 }
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    private func threadCPUSeconds() -> Double { CPUTime.thread() / 1e6 }

    // MARK: - Memory

    private func idleMemory(url: String) async throws {
        let before = residentKiB()
        var engines: [(SRTCEngine, Channel)] = []
        for i in 0..<10 {
            let e = engine()
            let channel = try e.createChannel()
            try await channel.join(url: url, token: token("idle\(i)", "idle"))
            engines.append((e, channel))
        }
        try await Task.sleep(for: .seconds(1))
        let after = residentKiB()
        print(String(format: "idle joined engine: %.0f KiB RSS each (10 engines, one joined channel each, signaling only; process %d KiB)",
                     Double(after - before) / 10, after))
        for (e, _) in engines { await e.destroy() }
    }

    // MARK: - Sending

    private func encodeAndSend(url: String, desc: String) async throws {
        // Dynacast off: with it, a simulcast camera nobody subscribes to encodes no layer at all
        // (this row read 0.00 ms/frame), and the row is about what sending both layers costs.
        var configuration = SRTCEngine.Configuration(delegateQueue: DispatchQueue(label: "bench-events"), logLevel: .off,
                                                     mediaBindAddress: "127.0.0.1")
        configuration.dynacast = false
        let e = SRTCEngine(independent: configuration)
        let channel = try e.createChannel()
        try await channel.join(url: url, token: token("sender", "send-\(desc)"))
        let track = e.createLocalCustomVideoTrack(desc: desc, preset: .h720p)
        try await channel.publishLocalTrack(track)
        try await Task.sleep(for: .milliseconds(500)) // transport up
        let pattern = try TestPatternGenerator(width: 1_280, height: 720)
        let frames = (0..<30).map { pattern.buffer(number: $0) }
        let count = 300
        var wall = 0.0, cpu = 0.0
        for n in 0..<count {
            let frame = VideoFrame(buffer: frames[n % frames.count], timestampUs: Int64(n) * 33_334)
            let t0 = DispatchTime.now().uptimeNanoseconds, c0 = threadCPUSeconds()
            track.pushFrame(frame)
            cpu += threadCPUSeconds() - c0
            wall += Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9
        }
        let layers = desc == "camera_big" ? "simulcast 1280x720 + 320x180" : "one layer"
        print(String(format: "encode+send 720p (%@): %.2f ms/frame wall, %.2f ms/frame CPU on the pushing thread (processors, VP8, packetize, SRTP hop)",
                     layers, wall * 1_000 / Double(count), cpu * 1_000 / Double(count)))
        await e.destroy()
    }

    // MARK: - Receiving

    private func receiveAndDecode() async throws {
        let packets = try SDKBenchmarkSupport.recordedVideoPackets(width: 1_280, height: 720, frameCount: 300, bitrate: 1_700_000)
        let result = await SDKBenchmarkSupport.receiveAndDecode(packets)
        print(String(format: "receive+decode 720p: %.2f ms/frame (%d frames, %d packets: jitter buffer, NACK bookkeeping, VP8 decode, renderer)",
                     result.seconds * 1_000 / Double(max(1, result.frames)), result.frames, packets.count))
    }

    /// Pushes the 720p test pattern into `track` at 30 fps from a thread of its own until the
    /// returned function is called.
    private func pushPattern(to track: LocalCustomVideoTrack) throws -> @Sendable () -> Void {
        let running = Mutex(true)
        let pattern = try TestPatternGenerator(width: 1_280, height: 720)
        let pusher = Thread {
            var n = 0
            while running.withLock({ $0 }) {
                track.pushFrame(pattern.videoFrame(number: n))
                n += 1
                usleep(33_000)
            }
        }
        pusher.start()
        return { running.withLock { $0 = false } }
    }

    // MARK: - Dynacast

    /// The publisher's uplink (encoded bytes, both layers) when every subscriber watches the small
    /// layer, with dynacast on (the big layer is not encoded: nobody receives it) and off: a VP8
    /// simulcast camera, and VP9 and AV1 cameras sent as one `L2T3_KEY` stream (dynacast leaves
    /// the upper spatial layer out).
    private func dynacastUplink(url: String) async throws {
        var figures: [(codec: VideoCodec, dynacast: Bool, kbps: Double, paused: Set<Int>, spatial: [Int])] = []
        for codec in [VideoCodec.vp8, .vp9, .av1] {
            for dynacast in [true, false] {
                var configuration = SRTCEngine.Configuration(delegateQueue: DispatchQueue(label: "bench-events"), logLevel: .off,
                                                             mediaBindAddress: "127.0.0.1")
                configuration.dynacast = dynacast
                configuration.preferredVideoCodec = codec
                let publisher = SRTCEngine(independent: configuration)
                let room = "dynacast-\(codec.rawValue)-\(dynacast)"
                let channel = try publisher.createChannel()
                try await channel.join(url: url, token: token("pub", room))
                let track = publisher.createLocalCustomVideoTrack(desc: "camera_big", preset: .h720p)   // two layers: a camera
                try await channel.publishLocalTrack(track)
                var subscribers: [SRTCEngine] = []
                for i in 0 ..< Self.dynacastSubscribers {
                    let e = engine()
                    let c = try e.createChannel()
                    c.delegates.add(delegate: SmallLayerSubscriber.shared)
                    try await c.join(url: url, token: token("small\(i)", room))
                    subscribers.append(e)
                }
                let stopPushing = try pushPattern(to: track)
                try await Task.sleep(for: .seconds(4))   // subscriptions made, layers_needed applied
                let before = SDKBenchmarkSupport.encodedBytes(of: track).bytes
                let spatialBefore = SDKBenchmarkSupport.spatialFramesEncoded(of: track)
                let window = 5.0
                try await Task.sleep(for: .seconds(window))
                let after = SDKBenchmarkSupport.encodedBytes(of: track)
                let spatial = zip(SDKBenchmarkSupport.spatialFramesEncoded(of: track), spatialBefore).map { $0 - $1 }
                stopPushing()
                figures.append((codec, dynacast, Double(after.bytes - before) * 8 / window / 1_000, after.pausedLayers, spatial))
                for e in subscribers { await e.destroy() }
                await publisher.destroy()
            }
        }
        for f in figures {
            let kind = f.codec == .vp8 ? "720p VP8 simulcast" : "720p \(f.codec.rawValue.uppercased()) L2T3_KEY"
            let layers = f.codec == .vp8
                ? (f.paused.isEmpty ? " (both layers encoded)" : " (layer \(f.paused.sorted()) paused)")
                : " (layer frames in 5 s: S0 \(f.spatial[0]), S1 \(f.spatial[1]))"
            print(String(format: "publisher uplink, %@, %d subscribers all on camera_small: dynacast %@ %.0f kbit/s encoded%@",
                         kind, Self.dynacastSubscribers, f.dynacast ? "on: " : "off:", f.kbps, layers))
        }
    }

    static let dynacastSubscribers = 4

    // MARK: - Join to first frame

    private func joinToFirstFrame(url: String) async throws {
        let publisher = engine()
        let channel = try publisher.createChannel()
        try await channel.join(url: url, token: token("pub", "first-frame"))
        let track = publisher.createLocalCustomVideoTrack(desc: "camera_big", preset: .h720p)
        try await channel.publishLocalTrack(track)
        let stopPushing = try pushPattern(to: track)
        var times: [Double] = []
        for i in 0..<5 {
            let e = engine()
            let watcher = FirstFrameWatcher()
            let c = try e.createChannel()
            c.delegates.add(delegate: watcher)
            let start = DispatchTime.now().uptimeNanoseconds
            try await c.join(url: url, token: token("sub\(i)", "first-frame"))
            while watcher.firstFrameAt == nil, DispatchTime.now().uptimeNanoseconds - start < 10_000_000_000 {
                try await Task.sleep(for: .milliseconds(1))
            }
            if let at = watcher.firstFrameAt { times.append(Double(at - start) / 1e6) }
            await e.destroy()
        }
        times.sort()
        if !times.isEmpty {
            print(String(format: "join to first decoded remote frame, Swift SDK (720p simulcast, loopback): median %.0f ms, min %.0f ms, max %.0f ms over %d joins",
                         times[times.count / 2], times.first!, times.last!, times.count))
        } else {
            print("join to first frame, Swift SDK: no frame arrived")
        }
        try await otherClientsJoinToFirstFrame(url: url, channel: "first-frame")
        stopPushing()
        await publisher.destroy()
    }

    /// The same measure for aiortc and Chromium (interop/bench_first_frame.py), against this
    /// server while the publisher still sends; the script prints its own lines.
    private func otherClientsJoinToFirstFrame(url: String, channel: String) async throws {
        fflush(nil)  // our lines first: the script writes to the same stdout
        let process: ChildProcess
        do {
            process = try ChildProcess("python3", ["interop/bench_first_frame.py", "--url", url, "--channel", channel,
                                                   "--app-id", Self.appId, "--app-key", Self.appKey],
                                   standardOutput: .inherit, standardError: .inherit)
        } catch {
            print("join to first frame, aiortc and Chromium: cannot run interop/bench_first_frame.py (\(error))")
            return
        }
        await process.waitForExit(timeout: 600)
    }
}

/// Subscribes to the first video track and notes when its first frame is decoded.
private final class FirstFrameWatcher: ChannelDelegate, VideoRenderer, @unchecked Sendable {
    private let at = Mutex<UInt64?>(nil)
    var firstFrameAt: UInt64? { at.withLock { $0 } }

    func channel(_ channel: Channel, user: UserInfo, didAddTrack track: TrackInfo) {
        guard track.kind == .video, let remote = channel.remoteTrack(trackId: track.id) as? RemoteVideoTrack else { return }
        remote.add(videoRenderer: self)
        Task { try? await channel.subscribe(remote) }
    }

    func render(frame: VideoFrame) {
        let now = DispatchTime.now().uptimeNanoseconds
        at.withLock { if $0 == nil { $0 = now } }
    }
}

/// Subscribes to every video track at `camera_small` (dynacast benchmark); decodes what arrives.
private final class SmallLayerSubscriber: ChannelDelegate, @unchecked Sendable {
    static let shared = SmallLayerSubscriber()

    func channel(_ channel: Channel, user: UserInfo, didAddTrack track: TrackInfo) {
        guard track.kind == .video, let remote = channel.remoteTrack(trackId: track.id) else { return }
        Task { try? await channel.subscribe(remote, layer: .cameraSmall) }
    }
}
