import Foundation
import RTCMedia
import SRTC
import Synchronization

/// Feeds `srtc join`'s published tracks in real time from their own threads: a test pattern or
/// Y4M file for video, a tone or WAV file for audio (files loop).
final class JoinPublisher: Sendable {
    private let engine: SRTCEngine
    private let settings: JoinSettings
    private let running = Mutex(true)
    private let counts = Mutex((video: 0, audio: 0))

    init(engine: SRTCEngine, settings: JoinSettings) {
        self.engine = engine
        self.settings = settings
    }

    /// "video: 300 frames, audio: 500 × 20 ms" for the statistics line.
    var summary: String {
        let (video, audio) = counts.withLock { $0 }
        return "sent video \(video) frames, audio \(audio) × 20 ms"
    }

    /// Makes the tracks of the settings, hands each to `publishTrack` (a channel's publish, or
    /// collecting them for one WHIP offer) and starts feeding them.
    func publish(with publishTrack: (LocalTrack) async throws -> Void) async throws {
        switch settings.video {
        case .none: break
        case .pattern:
            let preset = VideoPreset(width: settings.width, height: settings.height, frameRate: settings.fps,
                                     maxBitrate: max(300_000, settings.width * settings.height * settings.fps / 10))
            let track = engine.createLocalCustomVideoTrack(desc: settings.desc, preset: preset)
            try await publishTrack(track)
            let generator = try TestPatternGenerator(width: settings.width, height: settings.height, frameRate: settings.fps)
            startLoop(name: "srtc-join-video", interval: 1.0 / Double(settings.fps)) { [self] n in
                track.pushFrame(generator.videoFrame(number: settings.patternStart + n))
                counts.withLock { $0.video += 1 }
            }
        case .file(let path):
            let reader = try Y4MReader(path: path)
            let file = LoopOwned(reader)
            let fps = reader.frameRate.denominator > 0 ? Double(reader.frameRate.numerator) / Double(reader.frameRate.denominator) : 30
            let preset = VideoPreset(width: reader.width, height: reader.height, frameRate: Int(fps.rounded()),
                                     maxBitrate: max(300_000, reader.width * reader.height * Int(fps) / 10))
            let track = engine.createLocalCustomVideoTrack(desc: settings.desc, preset: preset)
            try await publishTrack(track)
            let start = DispatchTime.now().uptimeNanoseconds
            startLoop(name: "srtc-join-y4m", interval: 1 / fps) { [self] _ in
                var frame = try? file.value.readFrame()
                if frame == nil { try? file.value.rewind(); frame = try? file.value.readFrame() }
                guard var frame else { return }
                frame.timestampUs = Int64((DispatchTime.now().uptimeNanoseconds - start) / 1_000)
                track.pushFrame(frame)
                counts.withLock { $0.video += 1 }
            }
        }
        switch settings.audio {
        case .none: break
        case .tone:
            let track = engine.createLocalCustomAudioTrack(desc: TrackDesc.mic)
            try await publishTrack(track)
            let tone = LoopOwned(SineToneGenerator(frequency: settings.toneHz, amplitude: 0.3))
            startLoop(name: "srtc-join-audio", interval: 0.02) { [self] _ in
                track.pushAudioBuffer(tone.value.next(frameCount: 960))
                counts.withLock { $0.audio += 1 }
            }
        case .file(let path):
            // The whole file in memory, played in 20 ms slices and looped.
            let all = try WAVReader(path: path).readAll()
            let samples = all.floatSamples
            let chunk = max(1, all.sampleRate / 50) * all.channels
            guard !samples.isEmpty else { return }
            let track = engine.createLocalCustomAudioTrack(desc: TrackDesc.mic)
            try await publishTrack(track)
            startLoop(name: "srtc-join-wav", interval: 0.02) { [self] n in
                let start = (n * chunk) % samples.count
                var slice = Array(samples[start ..< min(samples.count, start + chunk)])
                if slice.count < chunk { slice += samples.prefix(chunk - slice.count) }
                track.pushAudioBuffer(AudioPCMBuffer(float32: slice, sampleRate: all.sampleRate, channels: all.channels))
                counts.withLock { $0.audio += 1 }
            }
        }
    }

    func stop() {
        running.withLock { $0 = false }
    }

    /// Calls `body(n)` every `interval` seconds on its own thread, on an absolute schedule (no drift).
    private func startLoop(name: String, interval: Double, _ body: @escaping @Sendable (Int) -> Void) {
        let thread = Thread { [self] in
            let start = DispatchTime.now().uptimeNanoseconds
            var n = 0
            while running.withLock({ $0 }) {
                body(n)
                n += 1
                let due = start + UInt64(Double(n) * interval * 1e9)
                let now = DispatchTime.now().uptimeNanoseconds
                if due > now { usleep(UInt32(min(1_000_000, (due - now) / 1_000))) }
            }
        }
        thread.name = name
        thread.start()
    }
}

/// State used only by one loop thread (a reader, a generator).
// @unchecked Sendable: the value is used by one loop thread only, created before that thread starts and not touched by its creator after.
final class LoopOwned<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}
