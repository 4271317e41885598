import Foundation
import RTCMedia
import SRTC
import Synchronization
import TestWait
import Testing

/// Pushes test-pattern frames (their number in the pixels) and a tone (or a clip, looped) into
/// local tracks in real time from its own thread; can pause and resume.
final class SDKMediaPusher: @unchecked Sendable {
    private let video: LocalCustomVideoTrack?
    private let audio: LocalCustomAudioTrack?
    private let generator: TestPatternGenerator
    private let fps: Int
    private let state = Mutex((running: true, paused: false, frames: 0, silent: false))
    private var tone: SineToneGenerator
    /// Digital silence, pushed instead of the tone while `silent`.
    private var silence: SineToneGenerator
    /// Mono PCM pushed in a loop instead of the tone (speech, for instance), 20 ms at a time.
    private let clip: (samples: [Int16], sampleRate: Int)?
    private var clipPosition = 0

    /// - Parameter firstNumber: the number of the first frame (publishers told apart by their numbers).
    /// - Parameter clip: mono PCM to push in a loop instead of the tone (its rate a multiple of 50 Hz).
    init(video: LocalCustomVideoTrack?, audio: LocalCustomAudioTrack?, width: Int, height: Int, fps: Int = 30, toneHz: Double = 440,
         firstNumber: Int = 0, clip: (samples: [Int16], sampleRate: Int)? = nil) throws {
        self.video = video
        self.clip = clip
        self.audio = audio
        self.fps = fps
        state.withLock { $0.frames = firstNumber }
        generator = try TestPatternGenerator(width: width, height: height, frameRate: fps)
        tone = SineToneGenerator(frequency: toneHz, amplitude: 0.4)
        silence = SineToneGenerator(frequency: toneHz, amplitude: 0)
        let thread = Thread { [self] in loop() }
        thread.name = "sdk-test-pusher"
        thread.start()
    }

    /// Frames pushed so far (the next frame's number).
    var framesPushed: Int { state.withLock { $0.frames } }

    func pause() { state.withLock { $0.paused = true } }
    func resume() { state.withLock { $0.paused = false } }
    func stop() { state.withLock { $0.running = false } }
    /// Pushes silence instead of the tone (the audio clock goes on) until set back.
    func setSilent(_ value: Bool) { state.withLock { $0.silent = value } }

    /// The next 20 ms of the clip, from its start again after its end.
    private func nextClipFrame() -> AudioPCMBuffer {
        let (samples, rate) = clip!
        let count = rate / 50
        var frame: [Int16] = []
        frame.reserveCapacity(count)
        while frame.count < count {
            let take = min(count - frame.count, samples.count - clipPosition)
            frame += samples[clipPosition ..< clipPosition + take]
            clipPosition = (clipPosition + take) % samples.count
        }
        return AudioPCMBuffer(int16: frame, sampleRate: rate, channels: 1)
    }

    private func loop() {
        // 10 ms ticks: audio every 2nd tick (20 ms), video when its slot is due.
        let start = DispatchTime.now().uptimeNanoseconds
        var tick = 0
        var nextVideo = 0.0
        while state.withLock({ $0.running }) {
            let (paused, silent) = state.withLock { ($0.paused, $0.silent) }
            let elapsed = Double(tick) * 0.01
            if !paused {
                if let video, elapsed >= nextVideo {
                    let n = state.withLock { s -> Int in defer { s.frames += 1 }; return s.frames }
                    video.pushFrame(generator.videoFrame(number: n))
                }
                if let audio, tick % 2 == 0 {
                    audio.pushAudioBuffer(silent ? silence.next(frameCount: 960) : clip == nil ? tone.next(frameCount: 960) : nextClipFrame())
                }
            }
            if elapsed >= nextVideo { nextVideo += 1 / Double(fps) }
            tick += 1
            let due = start + UInt64(tick) * 10_000_000
            let now = DispatchTime.now().uptimeNanoseconds
            if due > now { usleep(UInt32((due - now) / 1_000)) }
        }
    }
}

/// Collects what a subscriber decodes: the pattern numbers and sizes of video frames, PCM.
final class SDKMediaCollector: VideoRenderer, AudioRenderer, @unchecked Sendable {
    private let frames = Mutex<[(number: Int?, width: Int, height: Int)]>([])
    private let pcm = Mutex<[Float]>([])

    func render(frame: VideoFrame) {
        let number = TestPatternReader.frameNumber(in: frame)
        frames.withLock { $0.append((number, frame.width, frame.height)) }
    }

    func render(pcmBuffer: AudioPCMBuffer) {
        pcm.withLock { $0 += pcmBuffer.channel(0) }
    }

    var numbers: [Int] { frames.withLock { $0.compactMap(\.number) } }
    var sizes: [(Int, Int)] { frames.withLock { $0.map { ($0.width, $0.height) } } }
    var frameCount: Int { frames.withLock { $0.count } }
    var samples: [Float] { pcm.withLock { $0 } }

    /// The tone's frequency over the last second of audio.
    var toneFrequency: Double? {
        let tail = Array(samples.suffix(48_000))
        return tail.count < 9_600 ? nil : FrequencyEstimator.zeroCrossingFrequency(tail, sampleRate: 48_000)
    }
}

/// Subscribes to every track it hears about and attaches one collector per kind.
final class SDKAutoSubscriber: ChannelDelegate, @unchecked Sendable {
    let collector = SDKMediaCollector()
    let layer: VideoLayer?

    init(layer: VideoLayer? = nil) {
        self.layer = layer
    }

    func channel(_ channel: Channel, user: UserInfo, didAddTrack track: TrackInfo) {
        guard let remote = channel.remoteTrack(trackId: track.id) else { return }
        if let video = remote as? RemoteVideoTrack { video.add(videoRenderer: collector) }
        if let audio = remote as? RemoteAudioTrack { audio.add(audioRenderer: collector) }
        let layer = track.kind == .video ? self.layer : nil
        Task { try? await channel.subscribe(remote, layer: layer) }
    }
}

/// Whether frame numbers increase, and how many are missing between the first and last.
func frameGaps(_ numbers: [Int]) -> (ordered: Bool, missing: Int) {
    guard let first = numbers.first, let last = numbers.last else { return (true, 0) }
    let ordered = zip(numbers, numbers.dropFirst()).allSatisfy { $0 < $1 }
    return (ordered, (last - first + 1) - Set(numbers).count)
}

/// An SDK engine on loopback with one channel whose events an `SDKEventRecorder` keeps: what
/// every engine-to-engine test starts from.
struct SDKPeer {
    let engine: SRTCEngine
    let channel: Channel
    let events = SDKEventRecorder()

    init(receiveTimeout: Double = 3, useDataChannel: Bool = true, iceTransportPolicy: ICETransportPolicy = .all,
         preferredVideoCodec: VideoCodec = .vp8, trustedCAFile: String? = nil, e2ee: E2EEConfiguration? = nil, dynacast: Bool = true,
         opusDTX: Bool = false, redundantAudio: Bool = true, adaptiveStream: Bool = false) {
        var configuration = SRTCEngine.Configuration(delegateQueue: DispatchQueue(label: "sdk-peer-events"), logLevel: .off,
                                                     receiveTimeout: receiveTimeout, mediaBindAddress: "127.0.0.1",
                                                     useDataChannel: useDataChannel, iceTransportPolicy: iceTransportPolicy,
                                                     preferredVideoCodec: preferredVideoCodec, trustedCAFile: trustedCAFile)
        configuration.e2ee = e2ee
        configuration.dynacast = dynacast
        configuration.opusDTX = opusDTX
        configuration.redundantAudio = redundantAudio
        configuration.adaptiveStream = adaptiveStream
        engine = SRTCEngine(independent: configuration)
        channel = try! engine.createChannel()  // a live engine: this cannot throw
        channel.delegates.add(delegate: events)
    }
}

/// Waits until `collector` has decoded frame `last` (or later), then checks that its frame
/// numbers rose in order and that more than `atLeast` frames decoded.
func expectDecodedInOrder(_ collector: SDKMediaCollector, through last: Int, moreThan atLeast: Int, _ who: String,
                          timeout: Double = 20) async throws {
    try await eventually(timeout: timeout, "\(who) decodes the frames pushed; last \(collector.numbers.last ?? -1)") {
        (collector.numbers.last ?? -1) >= last
    }
    let numbers = collector.numbers
    #expect(frameGaps(numbers).ordered, "\(who): \(numbers)")
    #expect(numbers.count > atLeast, "\(who) decoded \(numbers.count)")
}
