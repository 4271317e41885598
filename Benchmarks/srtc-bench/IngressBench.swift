// The ingress worker's CPU per second and per frame of 720p30 input, and the glass-to-glass delay
// (docs/ingress.md, "What it costs"): the bench hands ffmpeg numbered 1280×720 pictures at 30 fps
// on its standard input (Y4M), ffmpeg encodes them as H.264 Constrained Baseline (libx264
// `ultrafast`, `zerolatency`, 2.5 Mbit/s) with a tone as AAC and pushes RTMP to an ingress of a
// real server, once passed through (no `transcode`) and once transcoded to VP8
// (`transcode: {}`), while an SDK viewer in this process subscribes (so the worker's encoder
// runs: dynacast pauses a track nobody receives) and notes when it decodes each frame number.
// The delay is from ffmpeg taking a picture off its pipe to the viewer's decode. The worker is
// the release `srtc-egress` next to this binary. Printed, never asserted.
import EgressServer
import Foundation
import MediaTestSupport
import Processes
import SRTC
import SRTCTestSupport
import Synchronization

/// Runs the ingress benchmark and prints its figures.
func runIngressBenchmarks() {
    print("== ingress")
    EgressWorkerBench.block("ingress") { try await EgressWorkerBench().runIngress() }
}

/// Subscribes every track it hears about, counts decoded pictures and notes when each frame
/// number was decoded.
// @unchecked Sendable: an atomic and a constant of a Sendable type.
private final class IngressViewer: ChannelDelegate, VideoRenderer, @unchecked Sendable {
    let frames = Atomic<Int>(0)
    let arrivals = ArrivalClock()
    func channel(_ channel: Channel, user: UserInfo, didAddTrack track: TrackInfo) {
        guard let remote = channel.remoteTrack(trackId: track.id) else { return }
        (remote as? RemoteVideoTrack)?.add(videoRenderer: self)
        Task { try? await channel.subscribe(remote) }
    }
    func render(frame: VideoFrame) {
        frames.add(1, ordering: .relaxed)
        arrivals.decoded(frame)
    }
}

extension EgressWorkerBench {
    /// Seconds of push before the measurement (probe, join, first key frame), and measured.
    private static let ingressWarmUp = 4.0, ingressMeasured = 10.0

    func runIngress() async throws {
        try await Self.withServer("srtc-bench-ingress") { server, directory in
            for transcode in [false, true] { try await ingressCPU(server, transcode: transcode, directory: directory) }
        }
    }

    private func ingressCPU(_ server: TestServer, transcode: Bool, directory: TemporaryDirectory) async throws {
        let channelName = transcode ? "ingress-transcode" : "ingress-passthrough"
        var body: [String: Any] = ["channel": channelName, "uid": "enc", "kind": "rtmp"]
        if transcode { body["transcode"] = ["video_bitrate": 2_500_000] }
        let before = Set(EgressWorkers.pids())
        let created = try await call(server, "/server/v1/ingress/create", body)["ingress"] as? [String: Any] ?? [:]
        guard let id = created["ingress_id"] as? String, let url = created["url"] as? String else { throw BenchFailure(description: "create: \(created)") }
        let worker = try await newEgressWorker(besides: before)
        let engine = SRTCEngine(independent: .init(delegateQueue: DispatchQueue(label: "bench-ingress"), logLevel: .off, mediaBindAddress: "127.0.0.1"))
        let channel = try engine.createChannel()
        let viewer = IngressViewer()
        channel.delegates.add(delegate: viewer)
        let grant = try await call(server, "/server/v1/channel/grant", ["channel": channelName, "uid": "viewer"])
        _ = try await channel.join(url: server.httpBase, token: grant["token"] as? String ?? "")

        let seconds = Int(Self.ingressWarmUp + Self.ingressMeasured) + 6
        let stream = try FrameFeeder.pattern(width: 1280, height: 720, frameRate: 30)
        let feeder = FrameFeeder(frameRate: 30)
        let ffmpeg = try ChildProcess("/usr/bin/ffmpeg", [
            "-hide_banner", "-loglevel", "error", "-f", "yuv4mpegpipe", "-i", "-", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
            "-shortest", "-map", "0:v", "-map", "1:a",
            "-c:v", "libx264", "-preset", "ultrafast", "-tune", "zerolatency", "-b:v", "2500k", "-g", "60", "-pix_fmt", "yuv420p",
            "-c:a", "aac", "-b:a", "128k", "-f", "flv", url], pipeInput: true, log: directory.file("ffmpeg-\(channelName).log"))
        feeder.start(ffmpeg, header: stream.header, count: seconds * 30, frame: stream.frame)
        defer {
            feeder.stop()
            ffmpeg.signal(SIGKILL)
        }
        // Publishing once the worker took the push (a listener refuses for a moment between two).
        var mode: String?
        for _ in 0..<150 where mode == nil {
            let list = try await call(server, "/server/v1/ingress/list", ["channel": channelName])
            let ingress = (list["ingresses"] as? [[String: Any]])?.first { $0["ingress_id"] as? String == id }
            if ingress?["status"] as? String == "publishing" { mode = (ingress?["media"] as? [String: Any])?["video_mode"] as? String }
            if mode == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        guard let mode else { throw BenchFailure(description: "the push was not taken; ffmpeg log in \(directory.file("ffmpeg-\(channelName).log"))") }
        try await Task.sleep(for: .seconds(Self.ingressWarmUp))
        let cpuBefore = CPUTime.process(pid: worker) ?? 0, framesBefore = viewer.frames.load(ordering: .relaxed)
        let wallBefore = Date()
        try await Task.sleep(for: .seconds(Self.ingressMeasured))
        let cpu = ((CPUTime.process(pid: worker) ?? 0) - cpuBefore) / 1e6
        let wall = Date().timeIntervalSince(wallBefore)
        let frames = viewer.frames.load(ordering: .relaxed) - framesBefore
        let delays = viewer.arrivals.delays(since: feeder.times(), from: 60).sorted()
        await channel.leave()
        await engine.destroy()
        _ = try await call(server, "/server/v1/ingress/delete", ["ingress_id": id])
        let what = transcode ? "transcode requested → VP8 + Opus" : "passthrough → H.264 + Opus"
        let g2g = delays.isEmpty ? "no frame matched"
            : "median \(delays[delays.count / 2]) ms, p90 \(delays[delays.count * 9 / 10]) ms over \(delays.count) frames"
        print("ingress worker, 1280x720 30 fps H.264 Constrained Baseline 2.5 Mbit/s + AAC over RTMP, \(what) (video_mode \(mode)): "
              + String(format: "%.3f s CPU per second of input (%.1f ms per input frame) over %.1f s; the viewer decoded %.1f fps",
                       cpu / wall, cpu / wall / 30 * 1_000, wall, Double(frames) / wall)
              + "; glass to glass (ffmpeg takes the picture → the viewer decodes it) \(g2g)")
    }
}
