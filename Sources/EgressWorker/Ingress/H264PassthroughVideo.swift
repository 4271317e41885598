import Foundation
import RTCAV
import SRTC

/// The video of an ingress whose H.264 goes out as it came (docs/ingress.md, "H.264
/// passthrough"): each access unit rewritten to Annex B and pushed to the encoded track. The
/// probe found no reordering; if the stream starts reordering later (B-frames mid-push,
/// `H264ReorderDetector`), the packet that shows it is not forwarded and the stream is re-encoded
/// from then on into the same track (`H264Reencoder`): the group of pictures passed through so far
/// (kept since its IDR) is replayed into a fresh decoder so the re-encoding starts at the next
/// picture, with a key frame, and no picture goes out twice or out of order.
final class H264PassthroughVideo {
    private let filter: H264AnnexBFilter
    private let track: LocalEncodedVideoTrack
    /// Makes the decoder of a switch (the demuxer's, holding pictures back for reordering).
    private let makeDecoder: () -> MediaDecoder?
    private let bitrate: Int
    private let level: Int?
    private var detector = H264ReorderDetector()
    /// The packets since the last IDR, for a switch to replay; bounded so an encoder that sends no
    /// IDR for long does not grow it (a switch then starts at the next IDR the decoder finds).
    private var groupOfPictures: [MediaPacket] = []
    private static let maxGroupOfPictures = 600
    private var lastPtsUs: Int64 = .min
    private var reencoder: H264Reencoder?

    init(filter: H264AnnexBFilter, track: LocalEncodedVideoTrack, bitrate: Int, level: Int?, makeDecoder: @escaping () -> MediaDecoder?) {
        self.filter = filter
        self.track = track
        self.bitrate = bitrate
        self.level = level
        self.makeDecoder = makeDecoder
    }

    /// Whether the stream is re-encoded now (the ingress's `video_mode` `reencode`).
    var isReencoding: Bool { reencoder != nil }

    /// Sends one packet of the video stream, waiting with `wait` for each picture's time (a pulled URL's pace).
    /// - Returns: true when this packet switched the stream to re-encoding.
    func push(_ packet: MediaPacket, wait: (Int64) -> Void) -> Bool {
        if let reencoder {
            reencoder.push(packet, wait: wait)
            return false
        }
        if detector.reorders(ptsUs: packet.ptsUs, dtsUs: packet.dtsUs), let decoder = makeDecoder() {
            IngressTask.log("the H.264 passed through reorders pictures (B-frames); re-encoding it from here")
            let reencoder = H264Reencoder(decoder: decoder, track: track, bitrate: bitrate, level: level, after: lastPtsUs)
            for earlier in groupOfPictures { reencoder.prime(earlier) }
            groupOfPictures = []
            reencoder.push(packet, wait: wait)
            self.reencoder = reencoder
            return true
        }
        if packet.isKeyFrame { groupOfPictures.removeAll(keepingCapacity: true) }
        if groupOfPictures.count < Self.maxGroupOfPictures { groupOfPictures.append(packet.copy()) }
        // Passthrough: no decode, no encode. A key-frame request from a subscriber is answered by
        // the encoder's next IDR (its GOP), which cannot be asked for.
        guard let units = try? filter.filter(packet) else { return false }
        for unit in units {
            if let pts = unit.ptsUs {
                wait(pts)
                lastPtsUs = max(lastPtsUs, pts)
            }
            track.pushEncodedFrame(unit.bytes, isKeyFrame: unit.isKeyFrame, timestampUs: unit.ptsUs ?? IngressPacer.nowUs())
        }
        return false
    }
}
