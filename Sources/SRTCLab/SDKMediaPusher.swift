import Foundation
import RTCMedia
import SRTCCore
import Synchronization

/// Pushes test-pattern frames (their number in the pixels) and a tone (or a clip, looped) into
/// local tracks in real time from its own thread; can pause and resume.
// @unchecked Sendable: `state` is a Mutex; the generators and `clipPosition` are used only by the pusher's own thread (`loop`) after init.
public final class SDKMediaPusher: @unchecked Sendable {
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
    /// When the latest frames were pushed (uptime ns), for the lab's delay figures: a ring of
    /// `pushTimeSlots` (number, time) pairs, slot `number % pushTimeSlots`, so a long run (a soak,
    /// a 60 s bench phase) keeps a fixed amount, not one entry per frame ever pushed.
    private static let pushTimeSlots = 4096  // over 2 minutes at 30 frames/s
    private let pushTimes = Mutex([(number: Int, uptime: UInt64)](repeating: (-1, 0), count: pushTimeSlots))

    /// - Parameter firstNumber: the number of the first frame (publishers told apart by their numbers).
    /// - Parameter clip: mono PCM to push in a loop instead of the tone (its rate a multiple of 50 Hz).
    public init(video: LocalCustomVideoTrack?, audio: LocalCustomAudioTrack?, width: Int, height: Int, fps: Int = 30, toneHz: Double = 440,
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
    public var framesPushed: Int { state.withLock { $0.frames } }

    /// When frame `number` was pushed into the track (uptime ns); nil if it was not, or was pushed
    /// more than `pushTimeSlots` frames ago.
    public func pushUptime(ofFrame number: Int) -> UInt64? {
        guard number >= 0 else { return nil }
        return pushTimes.withLock { times in
            let slot = times[number % Self.pushTimeSlots]
            return slot.number == number ? slot.uptime : nil
        }
    }

    public func pause() { state.withLock { $0.paused = true } }
    public func resume() { state.withLock { $0.paused = false } }
    public func stop() { state.withLock { $0.running = false } }
    /// Pushes silence instead of the tone (the audio clock goes on) until set back.
    public func setSilent(_ value: Bool) { state.withLock { $0.silent = value } }

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
                    let frame = generator.videoFrame(number: n)
                    let now = DispatchTime.now().uptimeNanoseconds
                    if n >= 0 { pushTimes.withLock { $0[n % Self.pushTimeSlots] = (n, now) } }
                    video.pushFrame(frame)
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
