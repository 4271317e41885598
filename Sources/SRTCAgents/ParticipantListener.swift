import Dispatch
import Foundation
import RTCMedia
import SRTC
import Synchronization

/// Hears one participant's audio track: the track's media thread converts each decoded 48 kHz
/// buffer to 16 kHz mono and queues 20 ms frames (`render`, allocation-free); a worker thread
/// runs voice activity, turn detection and the recognizer on them, so a slow recognizer never
/// holds up the media thread.
// @unchecked Sendable: `converter`, `assembly` and `assembled` are used only by `render` on the track's media thread; the worker reads frames through `ring` (locked), the rest is Atomic or `let`.
final class ParticipantListener: AudioRenderer, @unchecked Sendable {
    /// What the listener tells its agent. Set once at creation.
    struct Host: Sendable {
        /// The agent's clock, in ms.
        var clockMs: @Sendable () -> Int
        var emit: @Sendable (AgentEvent) -> Void
        /// Voice activity of this participant started (true) or its turn ended (false).
        var voiceChanged: @Sendable (_ uid: String, _ speaking: Bool) -> Void
        /// A recognizer loaded ahead of time, if one is ready (loading takes a while).
        var takeRecognizer: @Sendable () -> (any SpeechRecognizer)?
    }

    let uid: String
    private let host: Host
    private let settings: VoiceActivityDetector.Settings
    private let partialIntervalMs: Int
    private let speechToText: (any SpeechToText)?
    private let ring = FrameRing(capacityFrames: 1_500)  // 30 s behind before frames drop
    private let wake = DispatchSemaphore(value: 0)
    private let closing = Atomic<Bool>(false)
    /// Media-thread state (one media thread per track).
    private let converter = PCMConverter(outputRate: 16_000)
    private let assembly = UnsafeMutablePointer<Int16>.allocate(capacity: FrameRing.frameSamples)
    private var assembled = 0
    private let lastArrivalMs = Atomic<Int>(0)
    /// When the first 20 ms frame was complete (-1 before): the stream's time origin, which the
    /// worker may reach late (its recognizer loads first).
    private let firstFrameMs = Atomic<Int>(-1)
    private let finished = DispatchSemaphore(value: 0)

    init(uid: String, host: Host, settings: VoiceActivityDetector.Settings, partialIntervalMs: Int, speechToText: (any SpeechToText)?) {
        self.uid = uid
        self.host = host
        self.settings = settings
        self.partialIntervalMs = partialIntervalMs
        self.speechToText = speechToText
        let thread = Thread { [self] in work() }
        thread.name = "agent-listener-\(uid)"
        thread.start()
    }

    deinit {
        assembly.deallocate()
    }

    // MARK: - Media thread

    func render(pcmBuffer: AudioPCMBuffer) {
        guard !closing.load(ordering: .relaxed) else { return }
        do {
            try converter.convert(pcmBuffer) { samples in
                var index = 0
                while index < samples.count {
                    let n = min(FrameRing.frameSamples - assembled, samples.count - index)
                    (assembly + assembled).update(from: samples.baseAddress! + index, count: n)
                    assembled += n
                    index += n
                    if assembled == FrameRing.frameSamples {
                        if firstFrameMs.load(ordering: .relaxed) < 0 { firstFrameMs.store(host.clockMs(), ordering: .relaxed) }
                        ring.push(assembly)
                        assembled = 0
                        wake.signal()
                    }
                }
            }
            lastArrivalMs.store(host.clockMs(), ordering: .relaxed)
        } catch {
            host.emit(.error(uid: uid, error as? AgentError ?? .badAudio("\(error)")))
        }
    }

    /// Stops listening: what was heard of the current turn is finalised, then
    /// `participantLeft` is emitted; returns when that is done.
    func close() {
        closing.store(true, ordering: .relaxed)
        wake.signal()
        finished.wait()
    }

    // MARK: - Worker

    private func work() {
        var recognizer: (any SpeechRecognizer)?
        if let speechToText {
            do { recognizer = try host.takeRecognizer() ?? speechToText.makeRecognizer() } catch {
                host.emit(.error(uid: uid, error as? AgentError ?? .engineUnavailable("\(error)")))
            }
        }
        var worker = ListenerWorker(uid: uid, host: host, vad: VoiceActivityDetector(settings: settings), recognizer: recognizer,
                                    partialIntervalMs: partialIntervalMs, baseMs: host.clockMs())
        let frame = UnsafeMutablePointer<Int16>.allocate(capacity: FrameRing.frameSamples)
        defer { frame.deallocate() }
        while true {
            _ = wake.wait(timeout: .now() + .milliseconds(100))
            while ring.pop(into: frame) {
                worker.process(UnsafeBufferPointer(start: frame, count: FrameRing.frameSamples), firstFrameMs: firstFrameMs.load(ordering: .relaxed))
            }
            if closing.load(ordering: .relaxed) { break }
            // No audio for a while (the sender went quiet with DTX, or stopped): time still
            // passes for the turn detector.
            let gap = host.clockMs() - max(lastArrivalMs.load(ordering: .relaxed), worker.lastProcessedMs)
            if gap >= 200 { worker.processSilence(ms: gap) }
        }
        worker.finish()
        host.emit(.participantLeft(uid: uid))
        finished.signal()
    }
}
