import TestWait
import Foundation
import MediaTestSupport
import RTCAV
import RTCMedia
import TestRandom
import Testing

/// `MediaStreamSpec.h264(keyAccessUnit:)`: the stream of H.264 access units written as received
/// (a recording of an H.264 track), its size from the SPS (libavcodec's parser) and its SPS and
/// PPS as extradata; access units that cannot start a stream give nil.
@Suite struct H264StreamSpecTests {
    static let width = 160, height = 90, fps = 25

    /// OpenH264 access units of numbered test-pattern frames, the first a key frame.
    static func accessUnits(_ count: Int) throws -> [EncodedVideoFrame] {
        var configuration = H264Encoder.Configuration(width: width, height: height)
        configuration.frameRate = fps
        return try patternFrames(count, encoder: H264Encoder(configuration: configuration))
    }

    /// `count` numbered test-pattern frames (`width`×`height`) encoded by `encoder`, the first a key frame.
    static func patternFrames(_ count: Int, encoder: some VideoEncoding) throws -> [EncodedVideoFrame] {
        let pattern = try TestPatternGenerator(width: width, height: height, frameRate: fps)
        return try (0..<count).compactMap { try encoder.encode(pattern.videoFrame(number: $0), forceKeyFrame: $0 == 0) }
    }

    /// Writes `frames` as stream `spec` of a `container` file at `path` (as received, one every
    /// 40 ms), then reads it back with ffprobe and by decoding it (off the cooperative pool).
    static func writeAndRead(_ frames: [EncodedVideoFrame], spec: MediaStreamSpec, container: MediaContainer, path: String)
        async throws -> (MediaProbe, DecodedMediaFile) {
        try await offPool {
            let muxer = try MediaMuxer(url: path, container: container)
            let stream = try muxer.addStream(spec)
            try muxer.start()
            for (i, frame) in frames.enumerated() {
                try muxer.write(stream: stream, bytes: frame.data, ptsUs: Int64(i) * 40_000, isKeyFrame: frame.isKeyFrame)
            }
            try muxer.finish()
            return (try MediaProbe(path), try DecodedMediaFile(url: path))
        }
    }

    @Test func aKeyAccessUnitGivesItsCroppedSizeAndParameterSetsAndItsStreamMuxesAsReceived() async throws {
        let units = try Self.accessUnits(50)
        let key = try #require(units.first)
        #expect(key.isKeyFrame)
        // 90 rows are coded as 96 (six macroblocks) and cropped back by the SPS.
        let spec = try #require(MediaStreamSpec.h264(keyAccessUnit: key.data))
        #expect(spec.codec == .h264 && spec.width == Self.width && spec.height == Self.height)
        let types = H264.nalUnits(annexB: spec.extradata).map { spec.extradata[$0.lowerBound] & 0x1F }
        #expect(types == [H264.NALType.sps, H264.NALType.pps])

        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let (probe, decoded) = try await Self.writeAndRead(units, spec: spec, container: .fragmentedMP4, path: dir.file("copy.mp4"))
        #expect(probe.codecs == ["h264"] && probe.videoFrames == units.count)
        #expect(decoded.frameNumbers == Array(0..<units.count))
    }

    @Test func accessUnitsThatCannotStartAStreamGiveNil() throws {
        let key = try #require(try Self.accessUnits(1).first).data
        let withoutPPS = H264.nalUnits(annexB: key).filter { key[$0.lowerBound] & 0x1F != H264.NALType.pps }
            .flatMap { H264.startCode + key[$0] }
        #expect(MediaStreamSpec.h264(keyAccessUnit: withoutPPS) == nil)
        #expect(MediaStreamSpec.h264(keyAccessUnit: []) == nil)
        #expect(MediaStreamSpec.h264(keyAccessUnit: H264.startCode) == nil)
        // An SPS and a PPS of noise: the parser reads no size from them.
        #expect(MediaStreamSpec.h264(keyAccessUnit: H264.startCode + [0x67, 0xFF, 0xFF, 0xFF] + H264.startCode + [0x68, 0xFF]) == nil)
        // Noisy parameter sets never crash: a size is either read or not.
        var random = SeededRandom(seed: 0x264)
        for _ in 0..<500 {
            let noise = random.bytes(Int(random.next() % 300))
            if let spec = MediaStreamSpec.h264(keyAccessUnit: H264.startCode + [0x67] + noise + H264.startCode + [0x68] + noise) {
                #expect(spec.width > 0 && spec.height > 0)
            }
        }
    }
}
