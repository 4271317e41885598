import EgressProtocol
import Foundation
import RTCAV
import RTCMedia
import SRTC

/// Writes one recording file on its own queue (disk writes never run on a receive thread).
///
/// WebM stores the frames as they arrived (VP8, VP9 or AV1, Opus): no transcoding. MP4 stores an
/// H.264 or AV1 track as it arrived too; VP8 or VP9 video and the audio it gets as H.264 and AAC
/// encoded from the decoded media. Frames of a codec the file's video stream does not hold (a publisher that came back with
/// the other codec) are left out. The file starts at the first video key frame (or the first
/// audio packet of an audio-only recording); every stream is placed on one timeline by its
/// `MediaClock`, so an outage leaves a gap as long as the outage and no longer.
// @unchecked Sendable: the muxer, clocks, encoders and counters are touched only on `queue` (callers go through `queue.async`/`sync`).
final class RecordingWriter: @unchecked Sendable {
    let settings: RecordingSettings
    private let hasVideo: Bool
    private let hasAudio: Bool
    private let queue = DispatchQueue(label: "srtc-egress.record")
    private let onFailure: @Sendable (String) -> Void

    // Owned by `queue`.
    private var muxer: MediaMuxer?
    private var streams: (video: Int?, audio: Int?) = (nil, nil)
    private var videoClock = MediaClock(clockRate: 90_000)
    private var audioClock = MediaClock(clockRate: 48_000)
    private var originUs: Int64?
    private var lastUs: Int64 = 0
    private var counts = (video: 0, audio: 0)
    private var failed = false
    private var finished = false
    /// The video codec of the frames written as received, once the file is open: the first key
    /// frame's, VP8, VP9 or AV1 in WebM, H.264 or AV1 in MP4.
    private var copiedCodec: VideoCodec?
    private var leftOut = false
    /// VP9 with spatial layers: each picture as its top layer shows it (docs/egress.md).
    private var vp9 = VP9TopLayerFilter()
    // MP4 only: the transcoder (nil while the file holds H.264 as received).
    private var h264: AVH264Encoder?
    private var aac: AACEncoder?
    private var scaler: PictureScaler?
    private var samplesSeen: UInt32 = 0
    private var nextAudioUs: Int64?

    /// - Parameter onFailure: called once, on the writer's queue, when the file can no longer be written.
    init(settings: RecordingSettings, video: Bool, audio: Bool, onFailure: @escaping @Sendable (String) -> Void) {
        self.settings = settings
        hasVideo = video
        hasAudio = audio
        self.onFailure = onFailure
    }

    // MARK: - Compressed frames as they arrived: WebM (VP8, VP9, AV1, Opus), MP4 (H.264, AV1)

    func write(encoded frame: EncodedMediaFrame) {
        queue.async { [self] in
            guard !failed, !finished else { return }
            let isVideo = frame.kind == .video
            // Another codec than the file's stream holds, or H.264/AV1 into an MP4 already transcoding VP8.
            if isVideo, !copies(frame.videoCodec) || h264 != nil { return leaveOut(frame) }
            var frame = frame
            if isVideo, frame.videoCodec == .vp9 {
                // A picture of several spatial layers is stored as one block that shows its top
                // layer alone (VP9TopLayerFilter), so every player shows one picture per block.
                guard let picture = vp9.filter(frame.data) else { return }
                frame.data = picture
            }
            var clock = isVideo ? videoClock : audioClock
            let t = clock.time(rtpTimestamp: frame.rtpTimestamp, arrivalUs: frame.receivedAtUs)
            if isVideo { videoClock = clock } else { audioClock = clock }
            if muxer == nil {
                guard isVideo ? frame.isKeyFrame : !hasVideo else { return }
                var video: MediaStreamSpec?
                if isVideo {
                    video = Self.streamSpec(of: frame)
                    guard video != nil else { return }
                    copiedCodec = frame.videoCodec
                }
                open(video: video, audio: hasAudio && settings.format == .webm ? .opus(channels: 1) : nil, at: t)
            }
            guard let origin = originUs, t >= origin, let stream = isVideo ? streams.video : streams.audio else { return }
            append(stream: stream, bytes: frame.data, ptsUs: t - origin, key: frame.isKeyFrame, video: isVideo)
        }
    }

    // MARK: - MP4: decoded media, transcoded

    func write(decoded frame: VideoFrame, arrivalUs: Int64) {
        queue.async { [self] in
            guard !failed, !finished else { return }
            // The decoder keeps the RTP time (µs on the 90 kHz clock): recover the 32-bit timestamp.
            let rtp = UInt32(truncatingIfNeeded: frame.timestampUs * 9 / 100)
            let t = videoClock.time(rtpTimestamp: rtp, arrivalUs: arrivalUs)
            if muxer == nil {
                let width = frame.width & ~1, height = frame.height & ~1
                var configuration = AVH264Encoder.Configuration(width: max(16, width), height: max(16, height))
                configuration.keyFrameInterval = 60
                configuration.globalHeader = true
                do throws(AVMediaError) {
                    let encoder = try AVH264Encoder(configuration: configuration)
                    h264 = encoder
                    if hasAudio { aac = try AACEncoder(sampleRate: 48_000, channels: 1, globalHeader: true) }
                } catch {
                    return fail("H.264/AAC encoder: \(error)")
                }
                open(video: h264?.streamSpec, audio: aac?.streamSpec, at: t)
            }
            guard let origin = originUs, t >= origin, let encoder = h264, let stream = streams.video else { return }
            var picture = frame.buffer.toI420()
            let (w, h) = (encoder.configuration.width, encoder.configuration.height)
            if picture.width != w || picture.height != h {
                // The publisher changed size: scale to the file's size.
                guard var resized = try? VideoPixelBuffer.black(width: w, height: h) else { return }
                let scaler = self.scaler ?? PictureScaler()
                self.scaler = scaler
                try? scaler.scale(picture, into: &resized, x: 0, y: 0, width: w, height: h)
                picture = resized
            }
            do throws(AVMediaError) {
                for packet in try encoder.encode(VideoFrame(buffer: picture, timestampUs: t - origin), ptsUs: t - origin) {
                    append(stream: stream, bytes: packet.data, ptsUs: packet.ptsUs, key: packet.isKeyFrame, video: true)
                }
            } catch {
                fail("H.264: \(error)")
            }
        }
    }

    func write(decoded pcm: AudioPCMBuffer, arrivalUs: Int64) {
        queue.async { [self] in
            guard !failed, !finished else { return }
            samplesSeen &+= UInt32(pcm.frameCount)
            let t = audioClock.time(rtpTimestamp: samplesSeen, arrivalUs: arrivalUs) - pcm.durationUs
            if muxer == nil, !hasVideo {
                do throws(AVMediaError) { aac = try AACEncoder(sampleRate: 48_000, channels: 1, globalHeader: true) } catch { return fail("AAC: \(error)") }
                open(video: nil, audio: aac?.streamSpec, at: t)
            }
            guard let origin = originUs, t >= origin, let encoder = aac, let stream = streams.audio else { return }
            var mono = pcm.channels == 1 ? pcm.floatSamples : pcm.channel(0)
            if pcm.sampleRate != 48_000 { return }
            // The encoder counts samples: fill an outage with silence so audio stays in step with video.
            let due = nextAudioUs ?? t
            let gapSamples = Int((t - due) * 48 / 1_000)
            if gapSamples > 960 { mono = [Float](repeating: 0, count: min(gapSamples, 48_000 * settings.idleTimeoutSeconds)) + mono }
            nextAudioUs = t + pcm.durationUs
            do throws(AVMediaError) {
                for packet in try encoder.encode(interleaved: mono, ptsUs: due - origin) {
                    append(stream: stream, bytes: packet.data, ptsUs: packet.ptsUs, key: true, video: false)
                }
            } catch {
                fail("AAC: \(error)")
            }
        }
    }

    // MARK: - End

    /// Finalizes the file (trailer, cues) and returns what it holds. Blocks until written.
    func finish() -> RecordingResult {
        queue.sync {
            if !finished {
                finished = true
                if let muxer, !failed {
                    if let h264, let stream = streams.video {
                        for p in (try? h264.flush()) ?? [] { append(stream: stream, bytes: p.data, ptsUs: p.ptsUs, key: p.isKeyFrame, video: true) }
                    }
                    if let aac, let stream = streams.audio {
                        for p in (try? aac.flush()) ?? [] { append(stream: stream, bytes: p.data, ptsUs: p.ptsUs, key: true, video: false) }
                    }
                    do throws(AVMediaError) { try muxer.finish() } catch { fail("finishing: \(error)") }
                } else if let muxer {
                    try? muxer.finish()
                }
            }
            let size = (try? FileManager.default.attributesOfItem(atPath: settings.path)[.size] as? NSNumber)?.int64Value ?? 0
            return RecordingResult(bytes: size, durationMs: lastUs / 1_000, videoFrames: counts.video, audioFrames: counts.audio,
                                   complete: !failed && muxer != nil)
        }
    }

    /// Whether anything has been written.
    var hasStarted: Bool { queue.sync { muxer != nil } }

    // MARK: - Internals (queue)

    private func open(video: MediaStreamSpec?, audio: MediaStreamSpec?, at t: Int64) {
        let container: MediaContainer = settings.format == .webm ? .webm : .fragmentedMP4
        do throws(AVMediaError) {
            let m = try MediaMuxer(url: settings.path, container: container)
            if let video { streams.video = try m.addStream(video) }
            if let audio { streams.audio = try m.addStream(audio) }
            try m.start()
            muxer = m
            originUs = t
        } catch {
            fail("cannot write \(settings.path): \(error)")
        }
    }

    private func append(stream: Int, bytes: [UInt8], ptsUs: Int64, key: Bool, video: Bool) {
        guard let muxer, !failed else { return }
        do throws(AVMediaError) {
            try muxer.write(stream: stream, bytes: bytes, ptsUs: ptsUs, durationUs: video ? 0 : 20_000, isKeyFrame: key)
            if video { counts.video += 1 } else { counts.audio += 1 }
            lastUs = max(lastUs, ptsUs + (video ? 0 : 20_000))
        } catch {
            fail("writing \(settings.path): \(error)")
        }
    }

    /// Whether frames of `codec` go into the file as received.
    private func copies(_ codec: VideoCodec?) -> Bool {
        if let copiedCodec { return codec == copiedCodec }
        return settings.format == .webm ? codec == .vp8 || codec == .vp9 || codec == .av1 : codec == .h264 || codec == .av1
    }

    /// The video stream a file opened at key frame `frame` holds. VP8 key frames carry their size
    /// and an H.264 key access unit its SPS and PPS; a VP9 key picture is decoded once for its size
    /// (with spatial layers, the top layer's received: the lower ones are not shown); an AV1 key temporal unit
    /// gives its sequence header (the av1C) and is decoded once for its size.
    private static func streamSpec(of frame: EncodedMediaFrame) -> MediaStreamSpec? {
        switch frame.videoCodec {
        case .vp8: return frame.width > 0 ? .video(.vp8, width: frame.width, height: frame.height) : nil
        case .vp9:
            guard let decoder = try? VPXDecoder(codec: .vp9), let picture = try? decoder.decode(frame.data) else { return nil }
            return .video(.vp9, width: picture.width, height: picture.height)
        case .h264: return .h264(keyAccessUnit: frame.data)
        case .av1: return .av1(keyTemporalUnit: frame.data)
        case nil: return nil
        }
    }

    /// Notes once that frames of another codec were left out (standard error: the worker's log).
    private func leaveOut(_ frame: EncodedMediaFrame) {
        guard !leftOut else { return }
        leftOut = true
        let codec = frame.videoCodec?.rawValue ?? "unknown"
        FileHandle.standardError.write(Data("srtc-egress: \(settings.path): \(codec) video left out (the file holds \(copiedCodec?.rawValue ?? "none yet"))\n".utf8))
    }

    private func fail(_ why: String) {
        guard !failed else { return }
        failed = true
        onFailure(why)
    }
}
