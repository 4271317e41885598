#if canImport(RTCAV)
import Foundation
import RTCAV
import RTCMedia
import SRTCCore
import SRTCProtocol
import Synchronization

/// The CDN engine's media path: reads one opened stream on its own thread, decodes H.264 / AAC
/// (or whatever the stream holds) with libavcodec, and hands the frames to the channel's remote
/// tracks in real time: video to `VideoRenderer`s, audio in 20 ms buffers at 48 kHz to
/// `AudioRenderer`s, as the SFU engine's receivers do.
final class CDNStream: Sendable {
    /// An opened input and the flag that interrupts its blocking reads.
    // @unchecked Sendable: the demuxer is used only by the stream's one reading thread after the opener hands it over; `interrupt` (Sendable) is what other threads touch.
    struct Source: @unchecked Sendable {
        let demuxer: MediaDemuxer
        let interrupt: AVInterrupt
    }

    /// How reading ended (never reported after `stop()`).
    typealias Outcome = LiveStreamOutcome

    private let source: Source
    private let video: RemoteVideoTrack?
    private let audio: RemoteAudioTrack?
    private let onEnd: @Sendable (Outcome) -> Void
    private let stopped = Atomic<Bool>(false)

    init(source: Source, video: RemoteVideoTrack?, audio: RemoteAudioTrack?, onEnd: @escaping @Sendable (Outcome) -> Void) {
        self.source = source
        self.video = video
        self.audio = audio
        self.onEnd = onEnd
    }

    /// Opens `url` (blocking: call it off the cooperative pool), giving up after `timeout` seconds.
    static func open(url: String, timeout: Double) throws(SRTCError) -> Source {
        let interrupt = AVInterrupt()
        interrupt.setTimeout(timeout)
        do {
            // Start at the newest segment of a live playlist (lowest latency), reconnect HTTP reads.
            let demuxer = try MediaDemuxer(url: url, options: [("live_start_index", "-1"), ("rw_timeout", "5000000")], interrupt: interrupt)
            interrupt.setTimeout(nil)
            guard demuxer.firstStream(video: true) != nil || demuxer.firstStream(video: false) != nil else {
                throw AVMediaError.noStream("audio or video")
            }
            return Source(demuxer: demuxer, interrupt: interrupt)
        } catch {
            throw .connectionFailed("cannot play \(url): \(error)")
        }
    }

    /// The tracks a stream has, as the channel announces them.
    static func trackInfos(of source: Source, uid: String) -> [TrackInfo] {
        var infos: [TrackInfo] = []
        if let v = source.demuxer.firstStream(video: true) {
            infos.append(TrackInfo(id: "CDN_video", uid: uid, kind: .video, desc: TrackDescName.cameraBig,
                                   layers: [], codec: v.codecName))
        }
        if let a = source.demuxer.firstStream(video: false) {
            infos.append(TrackInfo(id: "CDN_audio", uid: uid, kind: .audio, desc: TrackDescName.mic, layers: [], codec: a.codecName))
        }
        return infos
    }

    /// Starts the reading thread.
    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "srtc-cdn"
        thread.start()
    }

    /// Stops reading; the thread ends without reporting.
    func stop() {
        stopped.store(true, ordering: .relaxed)
        source.interrupt.stop()
    }

    // MARK: - Reading thread

    private func run() {
        let demuxer = source.demuxer
        let videoStream = demuxer.firstStream(video: true)?.index
        let audioStream = demuxer.firstStream(video: false)?.index
        let videoDecoder = videoStream.flatMap { try? demuxer.makeDecoder(for: $0) }
        let audioDecoder = audioStream.flatMap { try? demuxer.makeDecoder(for: $0) }
        var pacer = StreamPacer()
        var chunker = AudioChunker()
        let packet = MediaPacket()
        var outcome = Outcome.ended
        while !stopped.load(ordering: .relaxed) {
            do throws(AVMediaError) {
                guard try demuxer.read(into: packet) else { break }
                let decoder = packet.streamIndex == videoStream ? videoDecoder : packet.streamIndex == audioStream ? audioDecoder : nil
                guard let decoder else { continue }
                for media in try decoder.decode(packet) { play(media, pacer: &pacer, chunker: &chunker) }
            } catch {
                outcome = .lost("\(error)")
                break
            }
        }
        guard !stopped.load(ordering: .relaxed) else { return }
        onEnd(outcome)
    }

    private func play(_ media: DecodedMedia, pacer: inout StreamPacer, chunker: inout AudioChunker) {
        let timestamp: Int64
        switch media {
        case .video(let frame): timestamp = frame.timestampUs
        case .audio(let pcm): timestamp = pcm.timestampUs ?? 0
        }
        let due = pacer.dueTime(ptsUs: timestamp, nowUs: Self.nowUs())
        let wait = due - Self.nowUs()
        if wait > 1_000 { usleep(UInt32(min(wait, 1_000_000))) }
        switch media {
        case .video(let frame):
            if let video, video.isSubscribed { video.deliver(frame) }
        case .audio(let pcm):
            guard let audio, audio.isSubscribed else { return }
            for buffer in chunker.push(pcm) { audio.deliver(buffer) }
        }
    }

    static func nowUs() -> Int64 { Int64(DispatchTime.now().uptimeNanoseconds / 1_000) }
}

/// Turns decoded audio of any rate and frame size (AAC: 1024 samples) into the 20 ms, 48 kHz
/// buffers every `AudioRenderer` gets.
struct AudioChunker {
    private var resampler: AudioResampler?
    private var pending: [Float] = []
    private var channels = 1

    mutating func push(_ buffer: AudioPCMBuffer) -> [AudioPCMBuffer] {
        if resampler == nil || channels != buffer.channels {
            channels = buffer.channels
            resampler = AudioResampler(outputRate: 48_000, outputChannels: channels)
            pending = []
        }
        pending += resampler!.process(buffer)
        let chunk = 960 * channels
        var out: [AudioPCMBuffer] = []
        var start = 0
        while pending.count - start >= chunk {
            out.append(AudioPCMBuffer(float32: Array(pending[start ..< start + chunk]), sampleRate: 48_000, channels: channels))
            start += chunk
        }
        pending.removeFirst(start)
        return out
    }
}
#endif
