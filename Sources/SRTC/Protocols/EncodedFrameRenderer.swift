import RTCMedia
import SRTCProtocol

/// Receives a remote track's compressed frames as they arrive, before decoding: a recorder that
/// stores what the publisher sent, without transcoding (the server's egress worker is one).
/// Add it with `remoteTrack.add(encodedFrameRenderer:)`; it is held weakly and called on the
/// track's receive thread. While a video track has encoded renderers and no video renderer, the
/// SDK does not decode it.
public protocol EncodedFrameRenderer: AnyObject {
    /// One frame: a whole VP8 frame or H.264 access unit (video, in decode order) or one Opus packet (audio, in
    /// sequence order after the playout buffer).
    func render(encodedFrame: EncodedMediaFrame)
}

/// A compressed frame of a remote track.
public struct EncodedMediaFrame: Sendable, Equatable {
    /// Audio or video.
    public var kind: TrackKind
    /// A VP8 frame (RFC 6386, no payload descriptor), a VP9 picture (one frame, or with spatial
    /// layers a superframe of its layer frames, lowest first, with the index of VP9 Annex B), an AV1
    /// temporal unit, an H.264 access unit (Annex B byte stream, SPS and PPS before each IDR from
    /// SDK publishers), or an Opus packet (RFC 6716).
    public var data: [UInt8]
    /// Whether a decoder can start here (always `true` for audio).
    public var isKeyFrame: Bool
    /// The sender's RTP timestamp.
    public var rtpTimestamp: UInt32
    /// Ticks per second of `rtpTimestamp`: 90 000 for video, 48 000 for Opus.
    public var clockRate: Int
    /// When the frame was complete here, monotonic microseconds (`DispatchTime` uptime).
    public var receivedAtUs: Int64
    /// Coded size of a VP8 key frame (0 otherwise, and for H.264).
    public var width: Int
    public var height: Int
    /// The video codec of `data` (nil for audio).
    public var videoCodec: VideoCodec?

    public init(kind: TrackKind, data: [UInt8], isKeyFrame: Bool, rtpTimestamp: UInt32, clockRate: Int, receivedAtUs: Int64,
                width: Int = 0, height: Int = 0, videoCodec: VideoCodec? = nil) {
        self.videoCodec = videoCodec
        self.kind = kind
        self.data = data
        self.isKeyFrame = isKeyFrame
        self.rtpTimestamp = rtpTimestamp
        self.clockRate = clockRate
        self.receivedAtUs = receivedAtUs
        self.width = width
        self.height = height
    }
}
