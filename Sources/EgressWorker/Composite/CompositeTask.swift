import EgressProtocol
import Foundation
import RTCMedia
import SRTC
import SRTCProtocol
import Synchronization

/// A composite (MCU): joins the channel as a hidden participant, subscribes to every user's video
/// (the layer each tile needs) and audio, composes the videos (`VideoCompositor`) on a video
/// clock and mixes the audio (`AudioMixer`) on a 20 ms clock, and publishes both under the
/// composite's uid: video as `camera_big` with a `camera_small` simulcast layer, audio as `mic`.
/// Joins, leaves, mutes, speakers and layout changes are followed without restarting. With live
/// settings, the same pictures and sound also go to HLS and/or RTMP (`LiveOutput`).
// @unchecked Sendable: the sink tables, layers, idle count and ticker are touched only on `queue` (the engine's delegate queue, and `onQueue`); the rest is Atomic, Mutex or `let`.
public final class CompositeTask: EgressTask, ChannelDelegate, @unchecked Sendable {
    private let task: WorkerTask
    private let settings: CompositeSettings
    private let events: WorkerEvents
    private let endRequest: @Sendable (String) -> Void
    private let queue = DispatchQueue(label: "srtc-egress.composite-events")
    private let engine: SRTCEngine
    private let channel: Channel
    let compositor: VideoCompositor
    let mixer = AudioMixer()
    private let videoTrack: LocalCustomVideoTrack
    private let audioTrack: LocalCustomAudioTrack?
    /// Clocks run while this is true.
    private let running = Atomic<Bool>(false)
    private let stopped = Atomic<Bool>(false)
    private let live = Mutex<LiveOutput?>(nil)
    private let startUs = Int64(DispatchTime.now().uptimeNanoseconds / 1_000)

    // Owned by `queue`.
    private var videoSinks: [String: TileSink] = [:]
    private var audioSinks: [String: MixerSink] = [:]
    /// The layer asked for each video track ("" for a track without layers); present once subscribed.
    private var requestedLayers: [String: String] = [:]
    private var idleSeconds = 0
    private var ticker: Task<Void, Never>?
    /// The trusted recorder's keys (`WorkerTask.e2ee`), or nil.
    private let keyProvider: E2EEKeyProvider?

    public init(task: WorkerTask, settings: CompositeSettings, events: WorkerEvents, endRequest: @escaping @Sendable (String) -> Void) throws {
        self.task = task
        self.settings = settings
        self.events = events
        self.endRequest = endRequest
        compositor = try VideoCompositor(width: settings.width, height: settings.height, layout: settings.layout)
        keyProvider = task.e2ee?.makeProvider()
        engine = SRTCEngine(independent: task.engineConfiguration(queue: queue, keyProvider: keyProvider))
        channel = try engine.createChannel()
        videoTrack = engine.createLocalCustomVideoTrack(
            desc: TrackDescName.cameraBig,
            preset: VideoPreset(width: settings.width, height: settings.height, frameRate: settings.frameRate, maxBitrate: settings.bitrate),
            simulcast: true)
        audioTrack = settings.audio ? engine.createLocalCustomAudioTrack(desc: TrackDescName.mic, preset: .music) : nil
        channel.delegates.add(delegate: self)
    }

    // MARK: - EgressTask

    public func start() async throws {
        do {
            try await channel.join(url: task.serverURL, token: task.token, nickname: "composite")
            try await channel.publishLocalTrack(videoTrack)
            if let audioTrack { try await channel.publishLocalTrack(audioTrack) }
        } catch {
            throw WorkerFailure("internal_error", "joining \(task.channel) failed: \(error)")
        }
        running.store(true, ordering: .relaxed)
        startClock(name: "srtc-egress-video", interval: 1 / Double(settings.frameRate)) { [weak self] _ in self?.videoTick() }
        if settings.audio {
            startClock(name: "srtc-egress-audio", interval: 0.02) { [weak self] _ in self?.audioTick() }
        }
        await onQueue {
            self.refreshSources()
            self.startTicker()
        }
        events.emit(.started)
        if let settings = task.live { await startLive(settings) }
    }

    public func handle(_ command: WorkerCommand) async {
        switch command {
        case .setLayout(let layout):
            await onQueue {
                self.compositor.setLayout(layout)
                self.updateLayers()
            }
        case .startLive(let settings):
            await startLive(settings)
        case .stopLive:
            stopLive(error: nil)
        case .setE2EEKeys(let keys):
            if let keyProvider { keys.add(to: keyProvider) }
        case .stop, .setToken:
            break
        }
    }

    public func stop(reason: String) async {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        running.store(false, ordering: .relaxed)
        await onQueue { self.ticker?.cancel() }
        stopLive(error: nil)
        await channel.leave()
        await engine.destroy()
        events.emit(.ended(reason: reason))
    }

    // MARK: - Live output

    private func startLive(_ live: LiveSettings) async {
        guard self.live.withLock({ $0 == nil }) else { return }
        let (w, h, fps, audio) = (settings.width, settings.height, settings.frameRate, settings.audio)
        // Opening an RTMP connection blocks: not on the cooperative pool.
        let result: Result<LiveOutput, Error> = await withCheckedContinuation { continuation in
            Thread {
                do {
                    let output = try LiveOutput(settings: live, width: w, height: h, frameRate: fps, audio: audio) { [weak self] error in
                        self?.stopLive(error: error ?? "live output ended")
                    }
                    continuation.resume(returning: .success(output))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }.start()
        }
        switch result {
        case .success(let output):
            self.live.withLock { $0 = output }
            events.emit(.liveStarted)
        case .failure(let error):
            events.emit(.liveEnded(error: "\(error)"))
        }
    }

    /// Ends live output; `error` says why when it failed.
    private func stopLive(error: String?) {
        guard let output = live.withLock({ l -> LiveOutput? in defer { l = nil }; return l }) else { return }
        if error == nil { output.finish() }
        events.emit(.liveEnded(error: error))
    }

    // MARK: - Clocks (their own threads)

    private func videoTick() {
        let picture = compositor.compose()
        let nowUs = Int64(DispatchTime.now().uptimeNanoseconds / 1_000)
        videoTrack.pushFrame(VideoFrame(buffer: picture, timestampUs: nowUs))
        live.withLock { $0 }?.push(video: picture, ptsUs: nowUs - startUs)
    }

    private func audioTick() {
        let (samples, _) = mixer.mix()
        let nowUs = Int64(DispatchTime.now().uptimeNanoseconds / 1_000)
        audioTrack?.pushAudioBuffer(AudioPCMBuffer(float32: samples, sampleRate: 48_000, channels: 1))
        live.withLock { $0 }?.push(audio: samples, ptsUs: nowUs - startUs)
    }

    /// Calls `body(n)` every `interval` seconds on an absolute schedule; a late wake-up catches up
    /// (at most a second's worth of ticks, then the schedule restarts from now).
    private func startClock(name: String, interval: Double, _ body: @escaping @Sendable (Int) -> Void) {
        // The thread holds the task until `stop()` clears `running`.
        let thread = Thread { [self] in
            var start = DispatchTime.now().uptimeNanoseconds
            var n = 0
            while running.load(ordering: .relaxed) {
                body(n)
                n += 1
                var due = start + UInt64(Double(n) * interval * 1e9)
                let now = DispatchTime.now().uptimeNanoseconds
                if now > due + 1_000_000_000 {
                    start = now
                    n = 0
                    due = now
                }
                if due > now { usleep(UInt32(min(1_000_000, (due - now) / 1_000))) }
            }
        }
        thread.name = name
        thread.start()
    }

    // MARK: - ChannelDelegate (queue)

    public func channel(_ channel: Channel, userDidJoin user: UserInfo) { refreshSources() }
    public func channel(_ channel: Channel, userDidLeave uid: String, reason: DisconnectReason) { refreshSources() }
    public func channel(_ channel: Channel, user: UserInfo, didAddTrack track: TrackInfo) { refreshSources() }
    public func channel(_ channel: Channel, user: UserInfo, didRemoveTrack track: TrackInfo) { refreshSources() }

    public func channel(_ channel: Channel, user: UserInfo, didUpdateTrack track: TrackInfo) {
        if track.kind == .video { compositor.setMuted(track.id, track.muted) }
    }

    public func channel(_ channel: Channel, didChangeActiveSpeakers snapshot: ActiveSpeakersSnapshot) {
        // The loudest speaker who has a video tile.
        let tiles = videoSinks.keys
        let speakerTrack = snapshot.speakers.lazy.compactMap { s in
            channel.remoteTracks(uid: s.uid).first { $0.kind == .video && tiles.contains($0.id) }?.id
        }.first
        guard let speakerTrack else { return }
        compositor.setSpeaker(speakerTrack)
        if compositor.layout == .speaker { updateLayers() }
    }

    public func channel(_ channel: Channel, didDisconnect reason: DisconnectReason, error: Error?) {
        guard reason != .clientLeave else { return }
        endRequest(reason.rawValue)
    }

    // MARK: - Sources (queue)

    /// Subscribes to every user's tracks (never another hidden publisher's: no composite of a
    /// composite), forgets the ones that went, and re-lays the tiles.
    private func refreshSources() {
        let users = channel.users
        // End-to-end encrypted tracks are left out unless the app handed this task keys (the
        // trusted recorder, docs/e2ee.md): without, their ciphertext would decode to nothing.
        let tracks = users.flatMap { user in channel.remoteTracks(uid: user.uid) }.filter { $0.info?.e2ee != true || keyProvider != nil }
        let videos = tracks.filter { $0.kind == .video }.compactMap { $0 as? RemoteVideoTrack }
        let audios = tracks.filter { $0.kind == .audio }.compactMap { $0 as? RemoteAudioTrack }
        compositor.setSources(videos.map(\.id))
        for track in videos {
            compositor.setMuted(track.id, track.isMuted)
            guard videoSinks[track.id] == nil else { continue }
            let sink = TileSink(id: track.id, compositor: compositor)
            track.add(videoRenderer: sink)
            videoSinks[track.id] = sink
        }
        for id in Array(videoSinks.keys) where !videos.contains(where: { $0.id == id }) {
            videoSinks[id] = nil
            requestedLayers[id] = nil
        }
        if settings.audio {
            for track in audios where audioSinks[track.id] == nil {
                let sink = MixerSink(id: track.id, mixer: mixer)
                track.add(audioRenderer: sink)
                audioSinks[track.id] = sink
                subscribe(track, layer: nil)
            }
            for id in Array(audioSinks.keys) where !audios.contains(where: { $0.id == id }) {
                audioSinks[id] = nil
                mixer.remove(source: id)
            }
        }
        updateLayers()
    }

    /// Subscribes new video tracks, and switches each to the layer its tile needs.
    private func updateLayers() {
        let tiles = compositor.tiles()
        for (id, tile) in tiles {
            guard let track = channel.remoteTrack(trackId: id) as? RemoteVideoTrack else { continue }
            let wanted = CompositeLayout.layer(for: tile, layers: track.info?.layers ?? [])
            let layer = wanted.flatMap(VideoLayer.init(rawValue:))
            guard let requested = requestedLayers[id] else {
                // First sight: subscribe once (the request is under way until the server answers).
                requestedLayers[id] = wanted ?? ""
                subscribe(track, layer: layer)
                continue
            }
            if track.isSubscribed, requested != (wanted ?? ""), let layer {
                requestedLayers[id] = wanted
                let channel = self.channel
                Task { try? await channel.switchLayer(track, to: layer) }
            }
        }
    }

    private func subscribe(_ track: RemoteTrack, layer: VideoLayer?) {
        let channel = self.channel
        Task {
            do { try await channel.subscribe(track, layer: layer) } catch {
                FileHandle.standardError.write(Data("srtc-egress: subscribing to \(track.id) failed: \(error)\n".utf8))
            }
        }
    }

    /// Once a second: end after the idle timeout with no user in the channel.
    private func startTicker() {
        ticker = WorkerTimers.everySecond { [weak self] in
            guard let self else { return false }
            queue.async { [self] in
                idleSeconds = channel.users.isEmpty ? idleSeconds + 1 : 0
                if idleSeconds >= settings.idleTimeoutSeconds { endRequest("idle") }
            }
            return true
        }
    }

    private func onQueue(_ body: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in queue.async { body(); c.resume() } }
    }
}

/// A video track's decoded frames into its tile.
final class TileSink: VideoRenderer, Sendable {
    let id: String
    let compositor: VideoCompositor
    init(id: String, compositor: VideoCompositor) { self.id = id; self.compositor = compositor }
    func render(frame: VideoFrame) { compositor.update(id, frame: frame) }
}

/// An audio track's decoded sound into the mix.
final class MixerSink: AudioRenderer, Sendable {
    let id: String
    let mixer: AudioMixer
    init(id: String, mixer: AudioMixer) { self.id = id; self.mixer = mixer }
    func render(pcmBuffer: AudioPCMBuffer) { mixer.push(source: id, samples: pcmBuffer.floatSamples, channels: pcmBuffer.channels) }
}
