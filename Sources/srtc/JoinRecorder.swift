import Foundation
import RTCMedia
import SRTC
import Synchronization

/// `srtc join`'s receiving side: subscribes to every remote track as it appears, records video
/// to Y4M and audio to WAV when asked, and prints what arrives.
final class JoinRecorder: ChannelDelegate, Sendable {
    private let channel: Channel
    private let directory: String?
    private let subscribe: Bool
    private let layer: VideoLayer?
    private let sinks = Mutex<[String: TrackSink]>([:])
    /// Sends every data message back to its sender (`--echo-data`).
    private let echoData: Bool
    /// Whether this bot has a key (`--e2ee-key`): without one, an end-to-end encrypted track is
    /// neither decoded nor recorded (its decoder would read garbage from the ciphertext).
    private let decrypts: Bool

    init(channel: Channel, recordDirectory: String?, subscribe: Bool, layer: VideoLayer?, echoData: Bool = false, decrypts: Bool = false) {
        self.channel = channel
        self.echoData = echoData
        self.decrypts = decrypts
        self.directory = recordDirectory
        self.subscribe = subscribe
        self.layer = layer
        if let recordDirectory {
            try? FileManager.default.createDirectory(atPath: recordDirectory, withIntermediateDirectories: true)
        }
    }

    // MARK: - ChannelDelegate

    func channel(_ channel: Channel, userDidJoin user: UserInfo) { say("\(user.uid) joined") }
    func channel(_ channel: Channel, userDidLeave uid: String, reason: DisconnectReason) { say("\(uid) left (\(reason.rawValue))") }
    func channelIsReconnecting(_ channel: Channel) { say("connection lost; reconnecting") }
    func channel(_ channel: Channel, didReconnect info: ChannelInfo) { say("reconnected") }
    func channel(_ channel: Channel, didDisconnect reason: DisconnectReason, error: Error?) {
        say("disconnected (\(reason.rawValue))\(error.map { ": \($0)" } ?? "")")
    }
    func channel(_ channel: Channel, didReceiveCustomMessage message: CustomMessage) { say("message from \(message.from ?? "backend"): \(message.data)") }
    func channel(_ channel: Channel, didReceiveData message: DataMessage) {
        say("data from \(message.from ?? "backend") (\(message.reliable ? "reliable" : "lossy")\(message.encrypted ? ", encrypted" : ""), "
            + "topic \(message.topic ?? "-")): \(message.data.count) bytes")
        guard echoData, let from = message.from else { return }
        // An encrypted message goes back encrypted: the sender reads it only with the key.
        do { try channel.publishData(message.data, reliable: message.reliable, to: [from], topic: message.topic, encrypted: message.encrypted) } catch {
            say("echo failed: \(error)")
        }
    }
    func channel(_ channel: Channel, didChangeReceiveStreamStatus status: ReceiveStreamStatus) {
        say("\(status.uid)/\(status.desc): \(status.timedOut ? "no frames (timed out)" : "frames flowing")")
    }
    func channel(_ channel: Channel, didSwitchLayer info: LayerSwitchedInfo) { say("\(info.uid)/\(info.trackId) now \(info.layer) (\(info.cause))") }
    func channel(_ channel: Channel, e2eeStateChanged uid: String, state: E2EEState) { say("e2ee: \(uid)'s media: \(state.rawValue)") }
    func channel(_ channel: Channel, didFailToDecryptData failure: DataDecryptionFailure) {
        say("e2ee: data from \(failure.from) (topic \(failure.topic ?? "-")) not decrypted: \(failure.reason.rawValue)")
    }

    func channel(_ channel: Channel, user: UserInfo, didAddTrack track: TrackInfo) {
        say("\(user.uid) published \(track.kind.rawValue) '\(track.desc)' (\(track.id))")
        guard subscribe, let remote = channel.remoteTrack(trackId: track.id) else { return }
        // Without a key, an encrypted track is still subscribed (its packets are counted) but
        // nothing is decoded or written: a bot without the key records nothing it cannot decrypt.
        let readable = decrypts || track.e2ee != true
        if !readable { say("e2ee: \(user.uid)'s '\(track.desc)' is end-to-end encrypted and this bot has no --e2ee-key: not decoded, not recorded") }
        let sink = TrackSink(track: remote, directory: readable ? directory : nil)
        sinks.withLock { $0[track.id] = sink }
        if readable, let video = remote as? RemoteVideoTrack { video.add(videoRenderer: sink) }
        if readable, let audio = remote as? RemoteAudioTrack { audio.add(audioRenderer: sink) }
        let layer = track.kind == .video ? self.layer : nil
        Task {
            do {
                try await channel.subscribe(remote, layer: layer)
            } catch {
                self.say("subscribing to \(track.id) failed: \(error)")
            }
        }
    }

    func channel(_ channel: Channel, user: UserInfo, didRemoveTrack track: TrackInfo) {
        say("\(user.uid) unpublished '\(track.desc)'")
        sinks.withLock { $0.removeValue(forKey: track.id) }?.close()
    }

    // MARK: - Output

    func printStatistics(published: String) {
        var lines = ["-- \(channel.info?.channel ?? "?"): \(channel.users.count) other user(s); \(published)"]
        for sink in sinks.withLock({ Array($0.values) }).sorted(by: { $0.name < $1.name }) { lines.append("   " + sink.statusLine()) }
        JoinOutput.line(lines.joined(separator: "\n"))
    }

    func close() {
        for sink in sinks.withLock({ Array($0.values) }) { sink.close() }
    }

    private func say(_ text: String) {
        JoinOutput.line("[\(Self.clock())] \(text)")
    }

    private static func clock() -> String {
        let t = Date().timeIntervalSince1970
        let s = Int(t) % 86_400
        return String(format: "%02d:%02d:%02d.%03d", s / 3_600, s / 60 % 60, s % 60, Int(t * 1_000) % 1_000)
    }
}

/// One subscribed track: counts what arrives, writes it to a file when recording.
final class TrackSink: VideoRenderer, AudioRenderer, Sendable {
    let track: RemoteTrack
    let name: String
    private let directory: String?
    private let state = Mutex(State())

    // @unchecked Sendable: a State lives only inside `TrackSink.state` (a Mutex): its writers and frame are used only with that lock held.
    private struct State: @unchecked Sendable {
        var y4m: Y4MWriter?
        var wav: WAVWriter?
        var segment = 0
        var frames = 0
        var lastFrames = 0
        var lastTime = Date()
        var size = (0, 0)
        /// The last frame decoded, for the test pattern's number in the status line.
        var lastFrame: VideoFrame?
        var samples: [Float] = []
    }

    init(track: RemoteTrack, directory: String?) {
        self.track = track
        self.directory = directory
        name = "\(track.uid)-\(track.desc)-\(track.id)"
    }

    func render(frame: VideoFrame) {
        state.withLock { s in
            s.frames += 1
            s.size = (frame.width, frame.height)
            s.lastFrame = frame
            guard let directory else { return }
            if let writer = s.y4m, writer.width != frame.width || writer.height != frame.height {
                try? writer.close() // a layer switch changed the size: continue in a new file
                s.y4m = nil
                s.segment += 1
            }
            if s.y4m == nil {
                let suffix = s.segment == 0 ? "" : "-\(s.segment)"
                s.y4m = try? Y4MWriter(path: "\(directory)/\(name)\(suffix).y4m", width: frame.width, height: frame.height)
            }
            try? s.y4m?.write(frame)
        }
    }

    func render(pcmBuffer: AudioPCMBuffer) {
        state.withLock { s in
            s.frames += 1
            s.samples = Array((s.samples + pcmBuffer.channel(0)).suffix(48_000))
            guard let directory else { return }
            if s.wav == nil {
                s.wav = try? WAVWriter(path: "\(directory)/\(name).wav", sampleRate: pcmBuffer.sampleRate, channels: pcmBuffer.channels)
            }
            try? s.wav?.write(pcmBuffer)
        }
    }

    /// "alice/camera_big: 29.8 fps 640x360, 1234 frames, pattern #1301, 0 lost, jitter 2.1 ms".
    func statusLine() -> String {
        let stats = track.receiveStatistics
        return state.withLock { s in
            let now = Date()
            let rate = Double(s.frames - s.lastFrames) / max(0.001, now.timeIntervalSince(s.lastTime))
            s.lastFrames = s.frames
            s.lastTime = now
            var line = "\(track.uid)/\(track.desc): "
            if track.kind == .video {
                line += String(format: "%.1f fps %dx%d, %d frames", rate, s.size.0, s.size.1, s.frames)
                // Another bot's test pattern (`--video pattern`) carries its frame number.
                if let number = s.lastFrame.flatMap(TestPatternReader.frameNumber(in:)) { line += ", pattern #\(number)" }
                if let video = track as? RemoteVideoTrack, video.isReceiveTimedOut { line += " (timed out)" }
            } else {
                let tone = FrequencyEstimator.zeroCrossingFrequency(s.samples, sampleRate: 48_000).map { String(format: ", ~%.0f Hz", $0) } ?? ""
                line += String(format: "%.1f × 20 ms/s, %d frames%@", rate, s.frames, tone)
                // RED (RFC 2198): packets that came with a redundant block, and losses it rebuilt.
                if let counters = (track as? RemoteAudioTrack)?.playoutCounters, counters.receivedAsRED > 0 {
                    line += ", \(counters.receivedAsRED) in RED (\(counters.recoveredByRED) rebuilt)"
                }
            }
            if let stats {
                line += String(format: ", %d packets, %d lost, jitter %.1f ms", stats.packetsReceived, stats.packetsLost, stats.jitterMs)
            }
            return line
        }
    }

    func close() {
        state.withLock { s in
            try? s.y4m?.close()
            try? s.wav?.close()
            s.y4m = nil
            s.wav = nil
        }
    }
}
