import TestWait
import Foundation
import MediaTestSupport
import RTCAV
import RTCMedia
import TestRandom
import Testing

/// `MediaStreamSpec.av1(keyTemporalUnit:)`: the stream of AV1 temporal units written as received
/// (a recording of an AV1 track), its size from decoding the key unit and its sequence header OBU as
/// extradata (the muxers' av1C / CodecPrivate); WebM and MP4 of such units read back frame by frame,
/// and units that cannot start a stream give nil.
@Suite struct AV1StreamSpecTests {
    static let width = H264StreamSpecTests.width, height = H264StreamSpecTests.height

    /// libaom temporal units of numbered test-pattern frames, the first a key frame.
    static func temporalUnits(_ count: Int) throws -> [EncodedVideoFrame] {
        var configuration = AV1Encoder.Configuration(width: width, height: height)
        configuration.frameRate = H264StreamSpecTests.fps
        return try H264StreamSpecTests.patternFrames(count, encoder: AV1Encoder(configuration: configuration))
    }

    @Test(arguments: [("webm", MediaContainer.webm), ("mp4", MediaContainer.fragmentedMP4)])
    func aKeyTemporalUnitGivesItsSizeAndSequenceHeaderAndItsStreamMuxesAsReceived(name: String, container: MediaContainer) async throws {
        let units = try Self.temporalUnits(50)
        let key = try #require(units.first)
        #expect(key.isKeyFrame)
        let spec = try #require(MediaStreamSpec.av1(keyTemporalUnit: key.data))
        #expect(spec.codec == .av1 && spec.width == Self.width && spec.height == Self.height)
        // One OBU: a sequence header (type 1) with obu_size, and nothing else.
        #expect(spec.extradata.first.map { $0 >> 3 & 0x0F } == AV1OBU.sequenceHeader && spec.extradata[0] & 0x02 != 0)
        var offset = 1
        let size = spec.extradata.withUnsafeBytes { AV1OBU.readLEB128($0, at: &offset) }
        #expect(size.map { offset + $0 } == spec.extradata.count)

        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let path = dir.file("copy." + name)
        let (probe, decoded) = try await H264StreamSpecTests.writeAndRead(units, spec: spec, container: container, path: path)
        #expect(probe.codecs == ["av1"] && probe.videoFrames == units.count, "\(path): \(probe)")
        #expect(decoded.streams.first?.width == Self.width && decoded.streams.first?.height == Self.height)
        #expect(decoded.frameNumbers == Array(0..<units.count))
    }

    @Test func unitsThatCannotStartAStreamGiveNil() throws {
        let units = try Self.temporalUnits(2)
        // A delta unit has no sequence header.
        #expect(MediaStreamSpec.av1(keyTemporalUnit: units[1].data) == nil)
        #expect(MediaStreamSpec.av1(keyTemporalUnit: []) == nil)
        // A sequence header alone decodes to no picture.
        let header = try #require(MediaStreamSpec.av1(keyTemporalUnit: units[0].data)).extradata
        #expect(MediaStreamSpec.av1(keyTemporalUnit: header) == nil)
        // An OBU whose obu_size runs past the end.
        #expect(MediaStreamSpec.av1(keyTemporalUnit: [0x0A, 0x7F, 0x00]) == nil)
        // Noise after a sequence header's OBU header never crashes: a stream is either found or not.
        var random = SeededRandom(seed: 0xA1)
        for _ in 0..<300 {
            let noise = random.bytes(Int(random.next() % 200))
            var unit: [UInt8] = [0x0A]
            AV1OBU.appendLEB128(noise.count, to: &unit)
            if let spec = MediaStreamSpec.av1(keyTemporalUnit: unit + noise + units[0].data) {
                #expect(spec.width > 0 && spec.height > 0)
            }
            _ = MediaStreamSpec.av1(keyTemporalUnit: noise)
        }
    }
}
