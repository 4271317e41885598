// Egress benchmarks against a real server and its `srtc-egress` workers (the release builds next
// to this binary, as `make bench` makes them), fed by test publishers sending real VP8 and Opus:
// the memory of a composite's worker (4 × 640×360 → 1280×720 at 30 fps), a track recording's
// worker CPU per received packet (no transcoding), and HLS glass-to-glass latency (the frame
// number sent against the same number rendered by the SDK's CDN engine). Printed, never asserted.
import EgressServer
import Foundation
import MediaTestSupport
import RTCMedia
import SRTC
import SRTCTestSupport
import Synchronization

/// Runs the worker benchmarks and prints their figures.
func runEgressWorkerBenchmarks() {
    EgressWorkerBench.block("egress worker") { try await EgressWorkerBench().run() }
}

/// The worker benchmarks (this file's, and the ingress worker's in IngressBench.swift).
struct EgressWorkerBench {
    /// Runs `body` and waits for it (the benchmarks' main thread is not async); a failure is printed.
    static func block(_ what: String, _ body: @escaping @Sendable () async throws -> Void) {
        let done = DispatchSemaphore(value: 0)
        Task {
            do {
                try await body()
            } catch {
                print("\(what) benchmark failed: \(error)")
            }
            done.signal()
        }
        done.wait()
    }

    func run() async throws {
        try await Self.withServer("srtc-bench-egress") { server, _ in
            try await compositeWorker(server)
            try await trackRecording(server)
            try await hlsLatency(server)
        }
    }

    /// A server with the egress module and a scratch directory for `body`; both go after it.
    static func withServer(_ prefix: String, _ body: (TestServer, TemporaryDirectory) async throws -> Void) async throws {
        let directory = try TemporaryDirectory(prefix: prefix)
        defer { directory.cleanUp() }
        let server = try TestServer(modules: [EgressModule.factory]) { config in
            config.egress.recordingDir = directory.file("recordings")
            config.logLevel = "error"
        }
        do {
            try await body(server, directory)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    // MARK: - Helpers

    /// A publisher of a numbered 640×360 VP8 camera (one layer), with or without its tone.
    private func publisher(_ server: TestServer, uid: String, channel: String, index: UInt32 = 0, audio: Bool = true) async throws
        -> (MediaTestClient, MediaTestPublisher) {
        let client = try await MediaTestClient(server: server, uid: uid, channel: channel)
        let layers = [MediaTestClient.VideoLayer(rid: "h", desc: "camera_big", ssrc: 0xB0_0000 + index, width: 640, height: 360)]
        _ = try await client.publish(audioSSRC: audio ? 0xA0_0001 : nil, video: layers)
        return (client, try MediaTestPublisher(client: client, audioSSRC: audio ? 0xA0_0001 : nil, video: layers))
    }

    func call(_ server: TestServer, _ path: String, _ body: [String: Any]) async throws -> [String: Any] {
        let (status, json) = try await server.call(path, body)
        guard status == 200 else { throw BenchFailure(description: "\(path): \(status) \(json)") }
        return json
    }


    // MARK: - Composite

    private func compositeWorker(_ server: TestServer) async throws {
        var publishers: [(MediaTestClient, MediaTestPublisher)] = []
        for i in 0..<4 { publishers.append(try await publisher(server, uid: "cam\(i)", channel: "mix", index: UInt32(i))) }
        let before = Set(EgressWorkers.pids())
        _ = try await call(server, "/server/v1/channel/composite/start",
                           ["channel": "mix", "uid": "mcu", "width": 1_280, "height": 720, "frame_rate": 30])
        let worker = try await newEgressWorker(besides: before)
        // Every publisher sends 10 s of real-time media; the worker's CPU counts over the last 6 s.
        let seconds = 10.0
        let sending = publishers.map { _, p in Task { try await p.run(seconds: seconds) } }
        try await Task.sleep(for: .seconds(4))
        let cpuStart = CPUTime.process(pid: worker) ?? 0
        try await Task.sleep(for: .seconds(6))
        let cpu = (CPUTime.process(pid: worker) ?? 0) - cpuStart
        let rss = EgressWorkers.memoryKiB(pid: worker) ?? 0, peak = EgressWorkers.memoryKiB(pid: worker, field: "VmHWM") ?? 0
        for task in sending { try await task.value }
        _ = try await call(server, "/server/v1/channel/composite/stop", ["channel": "mix", "uid": "mcu"])
        for (client, _) in publishers { client.close() }
        print(String(format: "composite worker (4 × 640x360 → 1280x720 grid at 30 fps, simulcast big+small, audio mix): "
                     + "resident %.1f MiB (peak %.1f MiB); %.1f ms CPU per output frame in the running worker, receiving included "
                     + "(on this machine, with the 4 publishers encoding beside it)",
                     Double(rss) / 1_024, Double(peak) / 1_024, cpu / 1_000 / (6 * 30)))
    }

    // MARK: - Track recording

    private func trackRecording(_ server: TestServer) async throws {
        let (client, publisher) = try await self.publisher(server, uid: "rec", channel: "record", audio: false)
        let before = Set(EgressWorkers.pids())
        let started = try await call(server, "/server/v1/channel/record/start", ["channel": "record", "uid": "rec", "desc": "camera_big"])
        let worker = try await newEgressWorker(besides: before)
        // Its first second (joining, subscribing, no media yet) is counted apart from the packets.
        let cpuStart = CPUTime.process(pid: worker) ?? 0
        try await Task.sleep(for: .seconds(1))
        let startUp = (CPUTime.process(pid: worker) ?? 0) - cpuStart
        let sentBefore = publisher.packetsSent
        let cpuBefore = CPUTime.process(pid: worker) ?? 0
        let seconds = 8.0
        try await publisher.run(seconds: seconds, audio: false)
        try await Task.sleep(for: .milliseconds(300))  // the last packets reach the file
        let cpu = (CPUTime.process(pid: worker) ?? 0) - cpuBefore
        let packets = publisher.packetsSent - sentBefore
        let recording = started["recording"] as? [String: Any] ?? [:]
        let stopped = try await call(server, "/server/v1/channel/record/stop", ["recording_id": recording["recording_id"] as? String ?? ""])
        client.close()
        let size = (stopped["recording"] as? [String: Any])?["size_bytes"] as? Int ?? 0
        print(String(format: "track recording (640x360 VP8 at 30 fps → WebM, no transcoding): %.1f µs worker CPU per received RTP packet "
                     + "(%d packets in %.0f s, SRTP and depacketizing included; the worker's first second, joining: %.0f ms CPU); file %.0f KiB",
                     cpu / Double(max(packets, 1)), packets, seconds, startUp / 1_000, Double(size) / 1_024))
    }

    // MARK: - HLS latency

    /// Remembers when each frame number was first rendered.
    final class FirstRender: VideoRenderer, @unchecked Sendable {
        let seen = Mutex<[Int: Date]>([:])
        func render(frame: VideoFrame) {
            guard let number = TestPatternReader.frameNumber(in: frame) else { return }
            let now = Date()
            seen.withLock { if $0[number] == nil { $0[number] = now } }
        }
    }

    /// When each frame number left the publisher, and the flag that stops its thread.
    final class SendLog: @unchecked Sendable {
        let sentAt = Mutex<[Int: Date]>([:])
        let stop = Atomic<Bool>(false)
    }

    /// Subscribes the stream's video to a renderer.
    final class StreamViewer: ChannelDelegate, @unchecked Sendable {
        let renderer = FirstRender()
        func channel(_ channel: Channel, user: UserInfo, didAddTrack track: TrackInfo) {
            guard let video = channel.remoteTrack(trackId: track.id) as? RemoteVideoTrack else { return }
            video.add(videoRenderer: renderer)
            Task { try? await channel.subscribe(video) }
        }
    }

    private func hlsLatency(_ server: TestServer) async throws {
        let (client, publisher) = try await self.publisher(server, uid: "cam", channel: "show")
        _ = try await call(server, "/server/v1/channel/composite/start",
                           ["channel": "show", "uid": "mcu", "width": 640, "height": 360, "frame_rate": 30])
        let live = try await call(server, "/server/v1/channel/live/start", ["channel": "show", "uid": "mcu"])
        guard let path = ((live["composite"] as? [String: Any])?["live"] as? [String: Any])?["hls_url"] as? String else {
            throw BenchFailure(description: "live/start: \(live)")
        }
        // The publisher sends on its own thread (no await between frames), noting when each frame left.
        let log = SendLog()
        let sender = Thread {
            let start = Date()
            var audioDue = 0.0, videoDue = 0.0
            while !log.stop.load(ordering: .relaxed) {
                let elapsed = Date().timeIntervalSince(start)
                while elapsed >= audioDue { try? publisher.sendAudio(); audioDue += 0.020 }
                while elapsed >= videoDue {
                    let number = publisher.frameNumber
                    log.sentAt.withLock { $0[number] = Date() }
                    try? publisher.sendVideo()
                    videoDue += 1.0 / 30
                }
                usleep(4_000)
            }
        }
        sender.start()
        defer { log.stop.store(true, ordering: .relaxed) }

        let engine = SRTCEngine(independent: .init(delegateQueue: DispatchQueue(label: "bench-cdn"), logLevel: .off, mediaBindAddress: "127.0.0.1"))
        let channel = try engine.createChannel(engine: .cdn)
        let viewer = StreamViewer()
        channel.delegates.add(delegate: viewer)
        // The playlist exists once the first segment is written: retry until it opens.
        var playing = false
        for _ in 0..<30 where !playing {
            playing = (try? await channel.play(url: server.httpBase + path)) != nil
            if !playing { try await Task.sleep(for: .milliseconds(500)) }
        }
        guard playing else { throw BenchFailure(description: "the CDN engine could not open \(path)") }
        try await Task.sleep(for: .seconds(15))
        let rendered = viewer.renderer.seen.withLock { $0 }, sent = log.sentAt.withLock { $0 }
        let latencies = rendered.compactMap { number, at in sent[number].map { at.timeIntervalSince($0) } }.sorted()
        await channel.leave()
        log.stop.store(true, ordering: .relaxed)
        _ = try await call(server, "/server/v1/channel/live/stop", ["channel": "show", "uid": "mcu"])
        _ = try await call(server, "/server/v1/channel/composite/stop", ["channel": "show", "uid": "mcu"])
        client.close()
        guard !latencies.isEmpty else { throw BenchFailure(description: "no frame number read from the stream") }
        let at = { (q: Double) in latencies[min(latencies.count - 1, Int(q * Double(latencies.count)))] }
        print(String(format: "HLS glass-to-glass (publisher → composite 640x360 → H.264 2 s segments → CDN engine render): "
                     + "median %.2f s, p90 %.2f s, min %.2f s, max %.2f s over %d frames",
                     at(0.5), at(0.9), latencies.first!, latencies.last!, latencies.count))
    }
}

/// A benchmark that could not run (the figures it would print are missing).
struct BenchFailure: Error, CustomStringConvertible { let description: String }

/// The `srtc-egress` worker an in-process server started for the next task: the one child pid
/// not in `known`, waited for up to 15 s.
func newEgressWorker(besides known: Set<Int32>) async throws -> Int32 {
    for _ in 0..<150 {
        if let pid = EgressWorkers.pids().first(where: { !known.contains($0) }) { return pid }
        try await Task.sleep(for: .milliseconds(100))
    }
    throw BenchFailure(description: "no srtc-egress worker started (is the release srtc-egress built next to srtc-bench?)")
}
