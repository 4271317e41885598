import EgressProtocol
import Foundation
import RTCAV
import RTCMedia

/// The composite's live output: H.264 and AAC encoded once (libavcodec), muxed into HLS segments
/// with a sliding playlist and/or pushed over RTMP (libavformat). Encoding and network writes run
/// on the output's own queue, so a slow CDN never stalls the composite; when the queue falls
/// behind, video frames are dropped (audio never is).
// @unchecked Sendable: `queued` is guarded by `lock`; the encoders and outputs, set in init, and `failed` and `ended` are then touched only on `queue`.
final class LiveOutput: @unchecked Sendable {
    /// Frames waiting beyond which new video frames are dropped.
    static let maxQueuedFrames = 15

    private let settings: LiveSettings
    private let queue = DispatchQueue(label: "srtc-egress.live")
    private let lock = NSLock()
    private var queued = 0
    private var video: AVH264Encoder?
    private var audio: AACEncoder?
    /// Open outputs and their stream indices (video, audio).
    private var outputs: [(muxer: MediaMuxer, video: Int, audio: Int?)] = []
    private var failed: String?
    private let onEnd: @Sendable (String?) -> Void
    private var ended = false

    /// Opens the encoders and outputs (an RTMP connection attempt is bounded to 10 s).
    /// - Parameter onEnd: called once, on the output's queue, when every output failed (with why) —
    ///   not after `finish()`.
    init(settings: LiveSettings, width: Int, height: Int, frameRate: Int, audio hasAudio: Bool,
         onEnd: @escaping @Sendable (String?) -> Void) throws(AVMediaError) {
        self.settings = settings
        self.onEnd = onEnd
        var targets: [(String, MediaContainer)] = []
        if let directory = settings.hlsDirectory {
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            // Segments of an earlier run of this stream (a restarted worker) are not ours to delete later.
            for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where name.hasSuffix(".ts") {
                try? FileManager.default.removeItem(atPath: directory + "/" + name)
            }
            targets.append((directory + "/index.m3u8", .hls(segmentSeconds: settings.segmentSeconds, listSize: settings.playlistSize)))
        }
        if let url = settings.rtmpURL { targets.append((url, .flv)) }
        guard !targets.isEmpty else { throw .invalidParameter("no live output (HLS or RTMP)") }
        var configuration = AVH264Encoder.Configuration(width: width, height: height)
        configuration.frameRate = frameRate
        configuration.bitrate = settings.videoBitrate
        configuration.keyFrameInterval = frameRate * max(1, settings.segmentSeconds)
        configuration.preset = "veryfast"
        // FLV needs the codec headers out of band; MPEG-TS segments carry them in band as well.
        configuration.globalHeader = true
        let h264 = try AVH264Encoder(configuration: configuration)
        let aac = hasAudio ? try AACEncoder(sampleRate: 48_000, channels: 1, bitrate: settings.audioBitrate, globalHeader: true) : nil
        for (url, container) in targets {
            let interrupt = AVInterrupt()
            interrupt.setTimeout(10)
            let muxer = try MediaMuxer(url: url, container: container, interrupt: interrupt)
            let v = try muxer.addStream(h264.streamSpec)
            var a: Int?
            if let aac { a = try muxer.addStream(aac.streamSpec) }
            try muxer.start()
            interrupt.setTimeout(nil)
            outputs.append((muxer, v, a))
        }
        video = h264
        audio = aac
    }

    /// Queues a composed frame (dropped when the encoder is behind).
    func push(video buffer: VideoPixelBuffer, ptsUs: Int64) {
        let accept = lock.withLock { () -> Bool in
            guard queued < Self.maxQueuedFrames else { return false }
            queued += 1
            return true
        }
        guard accept else { return }
        queue.async { [self] in
            lock.withLock { queued -= 1 }
            guard let video, !ended else { return }
            do throws(AVMediaError) {
                for packet in try video.encode(VideoFrame(buffer: buffer, timestampUs: ptsUs), ptsUs: ptsUs) { write(packet, video: true) }
            } catch {
                fail("H.264: \(error)")
            }
        }
    }

    /// Queues 20 ms of mixed mono audio.
    func push(audio samples: [Float], ptsUs: Int64) {
        queue.async { [self] in
            guard let audio, !ended else { return }
            do throws(AVMediaError) {
                for packet in try audio.encode(interleaved: samples, ptsUs: ptsUs) { write(packet, video: false) }
            } catch {
                fail("AAC: \(error)")
            }
        }
    }

    /// Drains the encoders and finalizes every output (the HLS playlist gets its end tag). Blocks until done.
    func finish() {
        queue.sync {
            guard !ended else { return }
            if let video { for packet in (try? video.flush()) ?? [] { write(packet, video: true) } }
            if let audio { for packet in (try? audio.flush()) ?? [] { write(packet, video: false) } }
            ended = true
            for output in outputs { try? output.muxer.finish() }
            outputs = []
        }
    }

    // MARK: - Internals (queue)

    private func write(_ packet: EncodedPacket, video: Bool) {
        var index = 0
        while index < outputs.count {
            let output = outputs[index]
            guard let stream = video ? output.video : output.audio else { index += 1; continue }
            do throws(AVMediaError) {
                try output.muxer.write(stream: stream, packet: packet)
                index += 1
            } catch {
                // This output is gone (an RTMP server hung up, a disk filled); the others go on.
                FileHandle.standardError.write(Data("srtc-egress: live output \(output.muxer.url) failed: \(error)\n".utf8))
                failed = "\(output.muxer.url): \(error)"
                try? output.muxer.finish()
                outputs.remove(at: index)
            }
        }
        if outputs.isEmpty { fail(failed ?? "every output failed") }
    }

    private func fail(_ why: String) {
        guard !ended else { return }
        ended = true
        for output in outputs { try? output.muxer.finish() }
        outputs = []
        onEnd(why)
    }
}
