// The video encoders and decoders (VP8, VP9, H.264, AV1) behind one interface each, so a send or receive
// path holds either codec's.

/// Encodes raw frames into compressed frames ready for the codec's RTP packetizer. Not
/// thread-safe: one caller at a time.
public protocol VideoEncoding: AnyObject {
    /// Encodes one frame; `forceKeyFrame` makes it a key frame. Nil when rate control skipped it.
    func encode(_ frame: VideoFrame, forceKeyFrame: Bool) throws -> EncodedVideoFrame?
}

/// Decodes compressed frames (VP8 frames, H.264 Annex B access units). Not thread-safe.
public protocol VideoDecoding: AnyObject {
    /// The picture of `frame` (its timestamp kept), or nil when it produced none or only a
    /// damaged one (references lost: the caller asks for a key frame).
    /// - Throws: the codec's error on corrupt data.
    func decodeIntact(_ frame: EncodedVideoFrame) throws -> VideoFrame?
}

/// An encoder of spatial layers that can leave its upper ones out (dynacast inside SVC).
public protocol ScalableVideoEncoding: VideoEncoding {
    /// Encode spatial layers `0 ..< count` only from the next frame; raising the count makes the
    /// next picture a key picture (the restarted layer is decodable from it). No effect on a
    /// one-layer encoder.
    func setActiveSpatialLayers(_ count: Int) throws
}

extension VPXEncoder: ScalableVideoEncoding {}
extension H264Encoder: VideoEncoding {}

extension VPXDecoder: VideoDecoding {
    public func decodeIntact(_ frame: EncodedVideoFrame) throws -> VideoFrame? {
        let picture = try decode(frame)
        return lastFrameCorrupted ? nil : picture
    }
}

extension H264Decoder: VideoDecoding {
    /// OpenH264 runs without error concealment here, so a damaged picture is an error already.
    public func decodeIntact(_ frame: EncodedVideoFrame) throws -> VideoFrame? {
        try decode(frame.data, timestampUs: frame.timestampUs)
    }
}

extension VideoCodec {
    /// A decoder for this codec.
    public func makeDecoder() throws -> any VideoDecoding {
        switch self {
        case .vp8: return try VPXDecoder()
        case .vp9: return try VPXDecoder(codec: .vp9)
        case .h264: return try H264Decoder()
        case .av1: return try AV1Decoder()
        }
    }
}
