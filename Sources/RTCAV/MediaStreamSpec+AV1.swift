// An AV1 stream written as received (no transcoding). A temporal unit as the SDK rebuilds it from
// RTP is in the low-overhead bitstream format (AV1 §5.2: every OBU with obu_size), which is what
// Matroska's and ISO BMFF's AV1 mappings store per block or sample; libavformat (5.1) drops the
// temporal delimiters and padding OBUs those mappings leave out. The extradata is the key temporal
// unit's sequence header OBU: from it the WebM and MP4 muxers write the AV1CodecConfigurationRecord
// (CodecPrivate, `av1C`, av1-isobmff §2.3) with the sequence header as its configOBUs. The
// picture size comes from decoding the key unit once with dav1d (no hand-written header reader).
import RTCMedia

extension MediaStreamSpec {
    /// The AV1 stream a key temporal unit (a sequence header OBU and a key frame) starts; nil when
    /// the unit is malformed, has no sequence header, or does not decode to a picture.
    public static func av1(keyTemporalUnit unit: [UInt8]) -> MediaStreamSpec? {
        guard let range = unit.withUnsafeBytes({ AV1OBU.sequenceHeader(inTemporalUnit: $0) }),
              let decoder = try? AV1Decoder(), let picture = try? decoder.decode(unit), picture.width > 0, picture.height > 0 else { return nil }
        return .video(.av1, width: picture.width, height: picture.height, extradata: Array(unit[range]))
    }
}
