import EgressProtocol
import Foundation
import RTCAV
import RTCMedia
import SRTC
import SRTCProtocol
import Synchronization

/// An ingress (docs/ingress.md, "RTMP, SRT and URL ingest"): opens its input with libavformat —
/// an RTMP or SRT listener an encoder pushes to, or a URL it pulls —, decodes it with libavcodec
/// (H.264, HEVC, VP8/9, AAC, MP3, Opus… whatever the container carries) and publishes it into
/// the channel under the ingress's uid through the SDK, which encodes VP8 (`camera_big`) and Opus
/// (`mic`), or forwards H.264 without B-frames without decoding it (below). While no encoder pushes, the user is not in the channel; when the push ends the user
/// leaves and a listener waits for the next push, which resumes the same ingress.
///
/// H.264 Baseline, Main or High without B-frames is forwarded as it came, rewritten to Annex B
/// with the SPS and PPS before each IDR (`H264AnnexBFilter`) and published through
/// `LocalEncodedVideoTrack` under its own profile: no decode, no encode; if it starts B-frames
/// later, it is re-encoded into the same track from then on (`H264PassthroughVideo`). Anything else, or any
/// input when the ingress asked for `transcode`, is decoded and re-encoded as VP8: an RTMP
/// encoder's H.264 often has B-frames, which WebRTC cannot carry (RTP has no decoding order).
public final class IngressTask: EgressTask, Sendable {
    private let task: WorkerTask
    private let settings: IngressSettings
    private let events: WorkerEvents
    private let endRequest: @Sendable (String) -> Void
    private let queue = DispatchQueue(label: "srtc-egress.ingress-events")
    private let stopped = Atomic<Bool>(false)
    /// The interrupt of the input being opened or read: `stop()` ends a blocking call with it.
    private let current = Mutex<AVInterrupt?>(nil)
    private let finished = DispatchSemaphore(value: 0)
    /// The token of the next join: the task's, then the server's fresh ones (`setToken`).
    private let token: Mutex<String>

    public init(task: WorkerTask, settings: IngressSettings, events: WorkerEvents, endRequest: @escaping @Sendable (String) -> Void) {
        self.task = task
        self.settings = settings
        self.events = events
        self.endRequest = endRequest
        token = Mutex(task.token)
    }

    // MARK: - EgressTask

    /// Reports `started` at once: a listener is ready when its thread blocks in the open.
    public func start() async throws {
        let thread = Thread { [self] in
            run()
            finished.signal()
        }
        thread.name = "srtc-ingress"
        thread.start()
        events.emit(.started)
    }

    public func handle(_ command: WorkerCommand) async {
        if case .setToken(let fresh) = command { token.withLock { $0 = fresh } }
    }

    public func stop(reason: String) async {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        current.withLock { $0?.stop() }
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async { self.finished.wait(); c.resume() }
        }
        events.emit(.ended(reason: reason))
    }

    // MARK: - The input loop (its own thread)

    private var isStopped: Bool { stopped.load(ordering: .relaxed) }

    private func run() {
        var failuresInARow = 0
        while !isStopped {
            let interrupt = AVInterrupt()
            current.withLock { $0 = interrupt }
            if isStopped { break }
            if settings.kind == .rtmp { RTMPStreamKeyGuard.arm(interrupt) }
            let refusalsBefore = RTMPStreamKeyGuard.refusalCount
            let openedAt = IngressPacer.nowUs()
            let demuxer: MediaDemuxer
            do {
                demuxer = try MediaDemuxer(url: settings.input, options: openOptions, interrupt: interrupt)
                RTMPStreamKeyGuard.disarm()
            } catch {
                RTMPStreamKeyGuard.disarm()
                if isStopped { break }
                if RTMPStreamKeyGuard.refusalCount != refusalsBefore {
                    Self.log("refused a publish to another stream key")
                    continue
                }
                if settings.kind == .url {
                    events.emit(.failed(code: "not_found", message: "cannot open \(settings.input): \(error)"))
                    endRequest("input_failed")
                    return
                }
                // A handshake that failed (a wrong SRT passphrase, garbage on the port): listen again.
                // Only quick failures count towards giving up: a listener that waited long was not
                // failing to bind.
                failuresInARow = IngressPacer.nowUs() - openedAt > 5_000_000 ? 0 : failuresInARow + 1
                Self.log("input failed: \(error)")
                if failuresInARow >= 50 {
                    events.emit(.failed(code: "internal_error", message: "the listener keeps failing: \(error)"))
                    endRequest("failed")
                    return
                }
                usleep(UInt32(min(failuresInARow, 10)) * 100_000)
                continue
            }
            failuresInARow = 0
            let reason = publish(demuxer, interrupt: interrupt)
            events.emit(.inputEnded(reason: reason))
            if settings.kind == .url {
                endRequest("input_ended")
                return
            }
        }
    }

    /// libavformat options: a listener for RTMP (SRT listens through `mode=listener` in its URL).
    private var openOptions: [(String, String)] {
        switch settings.kind {
        // A second of probing (libavformat's default is 5 s): what the probe reads is published
        // in one burst once the streams are known, and a longer probe is a longer first wait.
        case .rtmp: [("listen", "1"), ("rw_timeout", "15000000"), ("analyzeduration", "1000000")]
        case .srt: [("analyzeduration", "1000000")]
        case .url: [("rw_timeout", "15000000"), ("reconnect", "1")]
        }
    }

    /// Joins under the ingress's uid, publishes what `demuxer` carries until it ends, leaves.
    /// - Returns: why the input ended (`eof`, `stopped`, `error: …`).
    private func publish(_ demuxer: MediaDemuxer, interrupt: AVInterrupt) -> String {
        let videoInfo = demuxer.firstStream(video: true)
        let audioInfo = demuxer.firstStream(video: false)
        // H.264 Baseline or Main without B-frames goes out as it came unless the ingress asked for
        // transcoding; High only when asked to (`"transcode": false`), as browsers without a High
        // decoder answer its offer without the codec. A filter that does not start (bad
        // extradata) falls back to transcoding.
        let filter = videoInfo.flatMap { info -> H264AnnexBFilter? in
            guard !settings.transcode, info.isH264WithoutReordering, settings.passesHigh || !info.isH264High else { return nil }
            return try? demuxer.makeAnnexBFilter(for: info.index)
        }
        let video = videoInfo.flatMap { try? demuxer.makeDecoder(for: $0.index) }
        let audio = audioInfo.flatMap { try? demuxer.makeDecoder(for: $0.index) }
        guard filter != nil || video != nil || audio != nil else { return "error: the input has no audio or video stream this server decodes" }
        let engine = SRTCEngine(independent: task.engineConfiguration(queue: queue, keyProvider: nil))
        defer { blocking { await engine.destroy() } }
        guard let channel = try? engine.createChannel() else { return "error: no channel" }
        let width = videoInfo?.width ?? 0, height = videoInfo?.height ?? 0
        let preset = VideoPreset(width: max(width, 16), height: max(height, 16), frameRate: 30, maxBitrate: settings.videoBitrate)
        let encodedTrack = filter.map { _ in
            engine.createLocalEncodedVideoTrack(desc: TrackDescName.cameraBig, preset: preset, profileLevelID: videoInfo?.h264ProfileLevelID ?? "42e01f")
        }
        let videoTrack = video.map { _ in
            engine.createLocalCustomVideoTrack(desc: TrackDescName.cameraBig, preset: preset, simulcast: settings.simulcast)
        }
        let audioTrack = audio.map { _ in engine.createLocalCustomAudioTrack(desc: TrackDescName.mic, preset: .music) }
        let token = self.token.withLock { $0 }
        let passedThrough: Result<Bool, Error> = blocking {
            do {
                _ = try await channel.join(url: self.task.serverURL, token: token, nickname: self.settings.uid)
                var published = false
                if let encodedTrack {
                    do {
                        try await channel.publishLocalTrack(encodedTrack)
                        published = true
                    } catch {
                        // The server took no H.264 for it: the video is transcoded instead.
                        Self.log("H.264 passthrough refused (\(error)); transcoding")
                    }
                }
                if !published, let videoTrack { try await channel.publishLocalTrack(videoTrack) }
                if let audioTrack { try await channel.publishLocalTrack(audioTrack) }
                return .success(published)
            } catch {
                return .failure(error)
            }
        }
        let passthrough: Bool
        switch passedThrough {
        case .success(let value): passthrough = value
        case .failure(let error): return "error: joining \(task.channel) failed: \(error)"
        }
        defer { blocking { await channel.leave() } }
        let mode: String? = passthrough ? "passthrough" : video != nil ? "transcode" : nil
        let input = IngressInput(videoCodec: videoInfo?.codecName, audioCodec: audioInfo?.codecName, width: width, height: height, videoMode: mode)
        events.emit(.inputStarted(input))
        Self.log("publishing \(videoInfo?.codecName ?? "no video") \(width)×\(height) by \(mode ?? "none"), \(audioInfo?.codecName ?? "no audio")")
        let passedThroughVideo: H264PassthroughVideo? = passthrough ? filter.flatMap { filter in
            encodedTrack.map { track in
                H264PassthroughVideo(filter: filter, track: track, bitrate: settings.videoBitrate,
                                     level: videoInfo.flatMap { $0.level > 0 ? $0.level : nil }) {
                    // Two pictures held back: x264's B-pyramid with 2 B-frames; the decoder deepens it if the stream needs more.
                    videoInfo.flatMap { try? demuxer.makeDecoder(for: $0.index, reorderDepth: 2) }
                }
            }
        } : nil

        // A pushed stream comes at its own pace: forwarding it as it arrives adds no delay (pacing
        // it would keep the probe's lag for the whole push). A pulled URL may be a file, read far
        // faster than real time.
        var pacer = settings.kind == .url ? IngressPacer() : nil
        let packet = MediaPacket()
        while !isStopped {
            let more: Bool
            do {
                more = try demuxer.read(into: packet)
            } catch {
                return isStopped ? "stopped" : "error: \(error)"
            }
            if !more { return "eof" }
            if let passedThroughVideo, packet.streamIndex == videoInfo?.index {
                let switched = passedThroughVideo.push(packet) { pts in pacer?.wait(until: pts, stopped: { self.isStopped }) }
                if switched {
                    var changed = input
                    changed.videoMode = "reencode"
                    events.emit(.inputChanged(changed))
                }
                continue
            }
            let decoder = packet.streamIndex == videoInfo?.index ? video : packet.streamIndex == audioInfo?.index ? audio : nil
            guard let decoder, let media = try? decoder.decode(packet) else { continue }
            for item in media {
                switch item {
                case .video(let frame):
                    pacer?.wait(until: frame.timestampUs, stopped: { self.isStopped })
                    videoTrack?.pushFrame(frame)
                case .audio(let pcm):
                    pacer?.wait(until: pcm.timestampUs, stopped: { self.isStopped })
                    audioTrack?.pushAudioBuffer(pcm)
                }
            }
        }
        return "stopped"
    }

    /// Runs `body` on the cooperative pool and waits for it (this thread is the input's own).
    private func blocking<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
        let box = BlockingResult<T>()
        Task { box.set(await body()) }
        return box.wait()
    }

    static func log(_ message: String) {
        FileHandle.standardError.write(Data("srtc-egress ingress: \(message)\n".utf8))
    }
}

/// The value of an async call a plain thread waits for.
// @unchecked Sendable: `value` is written once before `done.signal()` and read only after `done.wait()`, which orders the two.
private final class BlockingResult<T: Sendable>: @unchecked Sendable {
    private var value: T?
    private let done = DispatchSemaphore(value: 0)

    func set(_ value: T) {
        self.value = value
        done.signal()
    }

    /// Waits for `set`; the semaphore orders the write before this read.
    func wait() -> T {
        done.wait()
        return value!
    }
}
