import RTCCrypto

/// Notices that an H.264 stream passed through starts reordering its pictures (B-frames) after
/// the probe said it did not: an encoder whose SPS announces no reordering (or whose first
/// pictures had none) and which later sends B-frames. Packetization mode 1 sends NAL units in
/// decoding order (RFC 6184 §6.3) and a WebRTC receiver shows each picture once decoded, in that
/// order, so such a stream must not go out as it came (docs/ingress.md, "B-frames that start
/// mid-push").
///
/// From the container's timestamps of each packet, in decoding order:
/// - a presentation time below an earlier one (by less than `discontinuityUs`: a larger step back
///   is a timestamp reset, not reordering), or
/// - a presentation delay (`pts - dts`) larger than the first packet's (by less than a second):
///   an encoder delays presentation to make room for the B-frames it will send before this
///   picture (FLV's composition time, MPEG-TS's PTS ahead of its DTS). This catches the first
///   reordered picture, the P-frame sent ahead of its B-frames, before it is forwarded.
public struct H264ReorderDetector: Sendable {
    /// A step back in presentation time larger than this is a discontinuity, not reordering.
    public static let discontinuityUs: Int64 = 1_000_000
    /// Rounding of the container's time base into microseconds (FLV's are milliseconds).
    static let toleranceUs: Int64 = 1_000

    private var firstDelayUs: Int64?
    private var latestPtsUs: Int64?

    public init() {}

    /// Takes the next packet's times (microseconds; nil when the container gives none).
    /// - Returns: whether this packet shows reordering.
    public mutating func reorders(ptsUs: Int64?, dtsUs: Int64?) -> Bool {
        guard let pts = ptsUs else { return false }
        if let dts = dtsUs {
            // Saturating: the times come from the pushed stream (any encoder, any bytes).
            let delay = pts.subtractingSaturating(dts)
            if let first = firstDelayUs {
                // A jump of a second or more is a broken timestamp, not a few pictures' reordering.
                if delay > first.addingSaturating(Self.toleranceUs) && delay.subtractingSaturating(first) < Self.discontinuityUs { return true }
            } else {
                firstDelayUs = delay
            }
        }
        defer { latestPtsUs = max(latestPtsUs ?? pts, pts) }
        if let latest = latestPtsUs, pts < latest.subtractingSaturating(Self.toleranceUs) {
            guard latest.subtractingSaturating(pts) < Self.discontinuityUs else {
                latestPtsUs = nil
                return false
            }
            return true
        }
        return false
    }
}
