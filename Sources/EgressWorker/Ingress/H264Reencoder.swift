import Foundation
import RTCAV
import RTCMedia
import SRTC

/// The video of a passthrough ingress once its H.264 turned out to reorder pictures mid-push
/// (`H264ReorderDetector`): decodes it (the decoder puts the pictures back in display order) and
/// encodes it again as H.264 without B-frames into the **same track**, so subscribers keep their
/// subscription and only see a key frame (docs/ingress.md, "B-frames that start mid-push").
///
/// x264's `ultrafast` preset makes Constrained Baseline (no CABAC, no 8×8 transform, no
/// B-frames), which every decoder of the track's offered profile (Constrained Baseline, Main or
/// High) takes; the SPS keeps the input's level. A key frame is made when a subscriber asks
/// (`keyFrameRequested`), which passthrough could not do.
final class H264Reencoder {
    private let decoder: MediaDecoder
    private let track: LocalEncodedVideoTrack
    private let bitrate: Int
    private let level: Int?
    private var encoder: AVH264Encoder?
    /// The presentation time of the last picture subscribers got: a decoded picture at or before
    /// it went out already (passed through) or came out of order, and is dropped.
    private var lastPtsUs: Int64
    private var failed = false

    init(decoder: MediaDecoder, track: LocalEncodedVideoTrack, bitrate: Int, level: Int?, after lastPtsUs: Int64) {
        self.decoder = decoder
        self.track = track
        self.bitrate = bitrate
        self.level = level
        self.lastPtsUs = lastPtsUs
    }

    /// Decodes `packet` and sends the pictures it completes, waiting with `wait` for each one's time.
    func push(_ packet: MediaPacket, wait: (Int64) -> Void) {
        guard !failed, let media = try? decoder.decode(packet) else { return }
        for case .video(let frame) in media where frame.timestampUs > lastPtsUs {
            lastPtsUs = frame.timestampUs
            wait(frame.timestampUs)
            encode(frame)
        }
    }

    /// Decodes `packet` for its reference pictures only: a packet of the group of pictures passed
    /// through already, replayed so the decoder can decode what follows.
    func prime(_ packet: MediaPacket) {
        _ = try? decoder.decode(packet)
    }

    private func encode(_ frame: VideoFrame) {
        var keyFrame = track.keyFrameRequested
        if encoder.map({ $0.configuration.width != frame.width || $0.configuration.height != frame.height }) ?? true {
            var configuration = AVH264Encoder.Configuration(width: frame.width, height: frame.height)
            configuration.preset = "ultrafast"
            configuration.bitrate = bitrate
            configuration.frameRate = 30
            configuration.keyFrameInterval = 60
            configuration.level = level
            do {
                encoder = try AVH264Encoder(configuration: configuration)
            } catch {
                IngressTask.log("cannot re-encode \(frame.width)×\(frame.height) H.264: \(error); the video stops")
                failed = true
                return
            }
            keyFrame = true
        }
        guard let encoder, let packets = try? encoder.encode(frame, ptsUs: frame.timestampUs, forceKeyFrame: keyFrame) else { return }
        for packet in packets {
            track.pushEncodedFrame(packet.data, isKeyFrame: packet.isKeyFrame, timestampUs: packet.ptsUs)
        }
    }
}
