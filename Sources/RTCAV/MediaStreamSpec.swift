// What a muxer needs to know about one elementary stream: the codec and its parameters, and the
// codec's configuration record (extradata) when the container stores one.
import CAVCodec
import CAVFormat
import CAVUtil
import CSWScale

/// The codecs the wrappers write and read by name.
public enum MediaCodec: String, Sendable, Equatable, CaseIterable {
    case vp8, vp9, av1, opus, h264, aac

    /// Audio or video.
    public var isVideo: Bool { self == .vp8 || self == .vp9 || self == .av1 || self == .h264 }

    var codecID: AVCodecID {
        switch self {
        case .vp8: AV_CODEC_ID_VP8
        case .vp9: AV_CODEC_ID_VP9
        case .av1: AV_CODEC_ID_AV1
        case .opus: AV_CODEC_ID_OPUS
        case .h264: AV_CODEC_ID_H264
        case .aac: AV_CODEC_ID_AAC
        }
    }
}

/// One stream to add to a `MediaMuxer`.
public struct MediaStreamSpec: Sendable, Equatable {
    public var codec: MediaCodec
    /// Video: coded size in pixels.
    public var width: Int
    public var height: Int
    /// Video: nominal frames per second (a hint for the container).
    public var frameRate: Int
    /// Audio: samples per second and channels.
    public var sampleRate: Int
    public var channels: Int
    /// Audio: samples per frame, when fixed (1024 for AAC).
    public var frameSize: Int
    /// Audio: samples the decoder drops at the start (Opus pre-skip, AAC priming).
    public var initialPadding: Int
    /// The codec configuration record (AVCDecoderConfigurationRecord, AudioSpecificConfig, OpusHead),
    /// or what the muxer builds it from (H.264 SPS and PPS, AV1's sequence header OBU).
    public var extradata: [UInt8]
    /// Average bits per second, when known (a hint for some containers).
    public var bitrate: Int

    /// A video stream.
    public static func video(_ codec: MediaCodec, width: Int, height: Int, frameRate: Int = 30, extradata: [UInt8] = [], bitrate: Int = 0) -> MediaStreamSpec {
        MediaStreamSpec(codec: codec, width: width, height: height, frameRate: frameRate, sampleRate: 0, channels: 0, frameSize: 0,
                        initialPadding: 0, extradata: extradata, bitrate: bitrate)
    }

    /// An audio stream.
    public static func audio(_ codec: MediaCodec, sampleRate: Int, channels: Int, frameSize: Int = 0, initialPadding: Int = 0,
                             extradata: [UInt8] = [], bitrate: Int = 0) -> MediaStreamSpec {
        MediaStreamSpec(codec: codec, width: 0, height: 0, frameRate: 0, sampleRate: sampleRate, channels: channels, frameSize: frameSize,
                        initialPadding: initialPadding, extradata: extradata, bitrate: bitrate)
    }

    /// An Opus stream as received over RTP (48 kHz), with its OpusHead (RFC 7845 §5.1).
    public static func opus(channels: Int) -> MediaStreamSpec {
        .audio(.opus, sampleRate: 48_000, channels: channels, frameSize: 960, initialPadding: OpusHead.defaultPreSkip,
               extradata: OpusHead(channels: channels).bytes)
    }
}

/// The identification header of an Opus stream (RFC 7845 §5.1), which Matroska and MP4 store as
/// the codec's private data.
public struct OpusHead: Sendable, Equatable {
    /// libopus's look-ahead at 48 kHz: the samples a decoder drops at the start.
    public static let defaultPreSkip = 312

    public var channels: Int
    public var preSkip: Int
    public var inputSampleRate: Int

    public init(channels: Int, preSkip: Int = OpusHead.defaultPreSkip, inputSampleRate: Int = 48_000) {
        self.channels = channels
        self.preSkip = preSkip
        self.inputSampleRate = inputSampleRate
    }

    /// The 19 bytes of channel mapping family 0 (mono or stereo).
    public var bytes: [UInt8] {
        var out = Array("OpusHead".utf8)
        out.append(1)                                   // version
        out.append(UInt8(clamping: channels))           // output channel count
        let skip = UInt16(clamping: preSkip)
        out += [UInt8(skip & 0xFF), UInt8(skip >> 8)]   // pre-skip, little endian
        let rate = UInt32(clamping: inputSampleRate)
        out += [UInt8(rate & 0xFF), UInt8(rate >> 8 & 0xFF), UInt8(rate >> 16 & 0xFF), UInt8(rate >> 24)]  // input sample rate
        out += [0, 0]                                   // output gain (Q7.8 dB)
        out.append(0)                                   // channel mapping family 0: mono or stereo, no table
        return out
    }
}
