// The containers egress writes, each with the libavformat muxer options that make it behave as
// recordings and live streams need: written as it goes, readable after a crash, segmented for HLS.

/// An output container and how it is written.
public enum MediaContainer: Sendable, Equatable {
    /// WebM (Matroska with VP8/VP9/AV1/Opus). Clusters of at most one second are written out as they
    /// close, and the segment size stays "unknown" until `finish()` writes the cues: a file cut short
    /// by a crash plays up to its last cluster.
    case webm
    /// Fragmented MP4 (ISO BMFF): an empty `moov`, then one `moof` + `mdat` fragment per key frame
    /// and at most every second. A file cut short by a crash plays up to its last fragment.
    case fragmentedMP4
    /// HTTP Live Streaming: MPEG-TS segments of about `segmentSeconds` (cut at key frames) and a
    /// playlist of the latest `listSize` segments, rewritten atomically; older segments are deleted.
    /// The URL is the playlist's path; segments go beside it.
    case hls(segmentSeconds: Int, listSize: Int)
    /// FLV, the container of RTMP (`rtmp://host/app/key` URLs).
    case flv

    /// libavformat's muxer name.
    var formatName: String {
        switch self {
        case .webm: "webm"
        case .fragmentedMP4: "mp4"
        case .hls: "hls"
        case .flv: "flv"
        }
    }

    /// The codecs the container accepts here.
    public func accepts(_ codec: MediaCodec) -> Bool {
        switch self {
        case .webm: codec == .vp8 || codec == .vp9 || codec == .av1 || codec == .opus
        case .fragmentedMP4: codec == .h264 || codec == .av1 || codec == .aac || codec == .opus
        case .hls, .flv: codec == .h264 || codec == .aac
        }
    }

    /// Muxer options (format context and private options), given to `avformat_write_header`.
    func options(url: String) -> [(String, String)] {
        switch self {
        case .webm:
            // 1 s clusters bound what a crash loses; flush_packets pushes each closed cluster to disk;
            // a stream that pauses (a muted camera) holds the other back at most 1 s.
            return [("cluster_time_limit", "1000"), ("cluster_size_limit", "4194304"), ("flush_packets", "1"),
                    ("max_interleave_delta", "1000000")]
        case .fragmentedMP4:
            return [("movflags", "frag_keyframe+empty_moov+default_base_moof"), ("frag_duration", "1000000"), ("flush_packets", "1"),
                    ("max_interleave_delta", "1000000")]
        case .hls(let seconds, let listSize):
            let directory = url.lastIndex(of: "/").map { String(url[..<$0]) } ?? "."
            return [("hls_time", String(max(1, seconds))), ("hls_list_size", String(max(1, listSize))),
                    // temp_file: the playlist is written aside and renamed, so a reader never sees half of it.
                    ("hls_flags", "delete_segments+temp_file+independent_segments"),
                    ("hls_segment_filename", directory + "/segment_%d.ts"), ("hls_allow_cache", "0"),
                    // Sequence numbers from the clock: a restarted stream continues above the old one.
                    ("hls_start_number_source", "epoch")]
        case .flv:
            // A network stream cannot be rewritten at the end.
            return [("flvflags", "no_duration_filesize")]
        }
    }
}
