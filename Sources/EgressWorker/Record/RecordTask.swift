import EgressProtocol
import Foundation
import RTCMedia
import RTCNet
import SRTC
import SRTCProtocol
import Synchronization

/// A recording: joins the channel as a hidden participant, subscribes to its source tracks
/// (one track, or a composite's video and audio) and writes them with a `RecordingWriter`. The
/// source is found by uid and description, so a publisher that reconnects (new track ids) goes
/// on in the same file; when it stays away for the idle timeout, the recording ends.
// @unchecked Sendable: `sinks` and `idleTimer` are touched only on `queue` (the engine's delegate queue, and `onQueue`); `done` is a Mutex.
public final class RecordTask: EgressTask, ChannelDelegate, @unchecked Sendable {
    private let task: WorkerTask
    private let settings: RecordingSettings
    private let events: WorkerEvents
    private let queue = DispatchQueue(label: "srtc-egress.record-events")
    private let engine: SRTCEngine
    private let channel: Channel
    private let writer: RecordingWriter
    /// Renderers by track id (held here: tracks keep them weakly).
    private var sinks: [String: AnyObject] = [:]
    private var idleTimer: TimerQueue.Handle?
    private let done = Mutex(false)
    private let endRequest: @Sendable (String) -> Void
    /// The trusted recorder's keys (`WorkerTask.e2ee`), or nil.
    private let keyProvider: E2EEKeyProvider?

    /// - Parameters:
    ///   - video: / audio: which streams the file holds (the server knows the source's kinds).
    ///   - endRequest: asks the runtime to stop the task (source gone, channel closed, write failure).
    public init(task: WorkerTask, settings: RecordingSettings, video: Bool, audio: Bool, events: WorkerEvents,
                endRequest: @escaping @Sendable (String) -> Void) {
        self.task = task
        self.settings = settings
        self.events = events
        self.endRequest = endRequest
        keyProvider = task.e2ee?.makeProvider()
        engine = SRTCEngine(independent: task.engineConfiguration(queue: queue, keyProvider: keyProvider))
        channel = try! engine.createChannel()  // a new engine is not destroyed: this cannot throw
        writer = RecordingWriter(settings: settings, video: video, audio: audio) { why in
            events.emit(.failed(code: "storage_failed", message: why))
            endRequest("storage_failed")
        }
        channel.delegates.add(delegate: self)
    }

    public func start() async throws {
        let directory = (settings.path as NSString).deletingLastPathComponent
        guard FileManager.default.isWritableFile(atPath: directory) else {
            throw WorkerFailure("storage_failed", "cannot write to \(directory)")
        }
        do {
            try await channel.join(url: task.serverURL, token: task.token, nickname: "recorder")
        } catch {
            throw WorkerFailure("internal_error", "join failed: \(error)")
        }
        await onQueue { self.scheduleIdleCheck() }
        events.emit(.started)
    }

    public func handle(_ command: WorkerCommand) async {
        if case .setE2EEKeys(let keys) = command, let keyProvider { keys.add(to: keyProvider) }
    }

    public func stop(reason: String) async {
        guard done.withLock({ s in defer { s = true }; return !s }) else { return }
        await onQueue { if let timer = self.idleTimer { WorkerTimers.cancel(timer) } }
        let result = writer.finish()
        await channel.leave()
        await engine.destroy()
        events.emit(.finished(result))
    }

    // MARK: - ChannelDelegate (queue)

    public func channel(_ channel: Channel, user: UserInfo, didAddTrack track: TrackInfo) {
        guard matches(track), let remote = channel.remoteTrack(trackId: track.id) else { return }
        attach(remote)
        if let idleTimer { WorkerTimers.cancel(idleTimer) }
        idleTimer = nil
    }

    public func channel(_ channel: Channel, user: UserInfo, didRemoveTrack track: TrackInfo) {
        guard sinks.removeValue(forKey: track.id) != nil else { return }
        if sinks.isEmpty { scheduleIdleCheck() }
    }

    public func channel(_ channel: Channel, didDisconnect reason: DisconnectReason, error: Error?) {
        guard reason != .clientLeave else { return }
        endRequest(reason.rawValue)
    }

    // MARK: - Internals (queue)

    private func matches(_ track: TrackInfo) -> Bool {
        guard track.uid == settings.uid else { return false }
        if let desc = settings.desc { return track.desc == desc }
        // A composite: its video (camera_big) and its audio (mic).
        return track.desc == TrackDescName.cameraBig || track.desc == TrackDescName.mic
    }

    private func attach(_ remote: RemoteTrack) {
        // WebM stores VP8, VP9, AV1 and Opus as received; MP4 an H.264 or AV1 track as received and the rest transcoded.
        let copiedIntoMP4 = ["h264", "av1"].contains(remote.info?.codec?.lowercased() ?? "")
        switch (settings.format, remote) {
        case (.webm, _), (.mp4, is RemoteVideoTrack) where copiedIntoMP4:
            let sink = EncodedSink(writer: writer)
            remote.add(encodedFrameRenderer: sink)
            sinks[remote.id] = sink
        case (.mp4, let video as RemoteVideoTrack):
            let sink = DecodedVideoSink(writer: writer)
            video.add(videoRenderer: sink)
            sinks[remote.id] = sink
        case (.mp4, let audio as RemoteAudioTrack):
            let sink = DecodedAudioSink(writer: writer)
            audio.add(audioRenderer: sink)
            sinks[remote.id] = sink
        default:
            return
        }
        let channel = self.channel
        Task {
            do { try await channel.subscribe(remote) } catch {
                FileHandle.standardError.write(Data("srtc-egress: subscribing to \(remote.id) failed: \(error)\n".utf8))
            }
        }
    }

    /// Ends the recording if no source is back within the idle timeout.
    private func scheduleIdleCheck() {
        guard sinks.isEmpty, idleTimer == nil else { return }
        idleTimer = WorkerTimers.after(.seconds(settings.idleTimeoutSeconds)) { [weak self] in
            self?.queue.async { [weak self] in
                guard let self, sinks.isEmpty else { return }
                endRequest("source_gone")
            }
        }
    }

    private func onQueue(_ body: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in queue.async { body(); c.resume() } }
    }
}

/// Compressed frames into the file (WebM; an H.264 or AV1 track in MP4).
private final class EncodedSink: EncodedFrameRenderer, Sendable {
    let writer: RecordingWriter
    init(writer: RecordingWriter) { self.writer = writer }
    func render(encodedFrame: EncodedMediaFrame) { writer.write(encoded: encodedFrame) }
}

/// Decoded pictures into the H.264 encoder (MP4 of a VP8 track).
private final class DecodedVideoSink: VideoRenderer, Sendable {
    let writer: RecordingWriter
    init(writer: RecordingWriter) { self.writer = writer }
    func render(frame: VideoFrame) { writer.write(decoded: frame, arrivalUs: Int64(DispatchTime.now().uptimeNanoseconds / 1_000)) }
}

/// Decoded audio into the AAC encoder (MP4).
private final class DecodedAudioSink: AudioRenderer, Sendable {
    let writer: RecordingWriter
    init(writer: RecordingWriter) { self.writer = writer }
    func render(pcmBuffer: AudioPCMBuffer) { writer.write(decoded: pcmBuffer, arrivalUs: Int64(DispatchTime.now().uptimeNanoseconds / 1_000)) }
}
