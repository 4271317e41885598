import Foundation
import MediaTestSupport
import RTCAV
import RTCMedia
import TestWait
import Testing

/// `H264AnnexBFilter` (the ingress's H.264 passthrough): an FLV stream (AVCC, SPS and PPS only in
/// its `avcC`) comes out as Annex B access units with the parameter sets before every IDR, which
/// OpenH264 decodes frame by frame (the numbers in the pixels, in order); the demuxer tells
/// Baseline from High; a stream that is not H.264 is refused with a named error.
@Suite struct H264AnnexBFilterTests {
    static let width = 160, height = 96, fps = 15

    /// An FLV file of `count` numbered frames encoded by libx264 with `preset` (`ultrafast`:
    /// Constrained Baseline; `veryfast`: High), a key frame every `fps` frames.
    static func flv(_ path: String, preset: String, count: Int) throws {
        let muxer = try MediaMuxer(url: path, container: .flv)
        var configuration = AVH264Encoder.Configuration(width: width, height: height)
        configuration.frameRate = fps
        configuration.keyFrameInterval = fps
        configuration.preset = preset
        configuration.globalHeader = muxer.wantsGlobalHeader
        let encoder = try AVH264Encoder(configuration: configuration)
        let stream = try muxer.addStream(encoder.streamSpec)
        try muxer.start()
        let pattern = try TestPatternGenerator(width: width, height: height, frameRate: fps)
        for i in 0..<count {
            for packet in try encoder.encode(pattern.videoFrame(number: i), ptsUs: Int64(i) * 1_000_000 / Int64(fps)) {
                try muxer.write(stream: stream, packet: packet)
            }
        }
        for packet in try encoder.flush() { try muxer.write(stream: stream, packet: packet) }
        try muxer.finish()
    }

    /// The NAL unit types of an Annex B access unit, in order.
    static func nalTypes(_ unit: [UInt8]) -> [UInt8] {
        unit.withUnsafeBytes { bytes in H264.nalUnits(annexB: bytes).map { bytes[$0.lowerBound] & 0x1F } }
    }

    @Test func anFLVStreamBecomesAnnexBWithParameterSetsBeforeEveryIDRAndDecodesInOrder() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let (info, units) = try await offPool { () -> (MediaDemuxer.StreamInfo?, [H264AnnexBFilter.AccessUnit]) in
            try Self.flv(dir.file("baseline.flv"), preset: "ultrafast", count: 45)
            let demuxer = try MediaDemuxer(url: dir.file("baseline.flv"))
            let info = demuxer.firstStream(video: true)
            let filter = try demuxer.makeAnnexBFilter(for: info?.index ?? 0)
            var units: [H264AnnexBFilter.AccessUnit] = []
            let packet = MediaPacket()
            while try demuxer.read(into: packet) {
                if packet.streamIndex == info?.index { units += try filter.filter(packet) }
            }
            return (info, units)
        }
        let stream = try #require(info)
        print("annexb: \(stream.codecName) profile \(stream.profile), \(units.count) access units, \(units.filter(\.isKeyFrame).count) IDR")
        #expect(stream.isH264Baseline, "profile \(stream.profile), reorders \(stream.reordersFrames)")
        #expect(units.count == 45)
        #expect(units.filter(\.isKeyFrame).count == 3)
        for unit in units {
            #expect(unit.bytes.starts(with: [0, 0, 0, 1]) || unit.bytes.starts(with: [0, 0, 1]))
            let types = Self.nalTypes(unit.bytes)
            if unit.isKeyFrame {
                // SPS and PPS from the avcC, before the IDR slice (H.264 §7.4.1.2.3).
                let idr = try #require(types.firstIndex(of: H264.NALType.idr), "\(types)")
                #expect(types[..<idr].contains(H264.NALType.sps) && types[..<idr].contains(H264.NALType.pps), "\(types)")
            } else {
                #expect(types.contains(H264.NALType.slice) && !types.contains(H264.NALType.idr), "\(types)")
            }
        }
        let times = units.compactMap(\.ptsUs)
        #expect(times.count == 45 && zip(times, times.dropFirst()).allSatisfy { $0 < $1 }, "\(times)")

        // OpenH264 (what the SDK's subscribers decode with) takes the units as RTP would carry them.
        let numbers = try await offPool { () -> [Int] in
            let decoder = try H264Decoder()
            return try units.compactMap { try decoder.decode($0.bytes) }.compactMap(TestPatternReader.frameNumber(in:))
        }
        #expect(numbers == Array(0..<45), "\(numbers)")
    }

    @Test func highProfileIsNotBaselineAndVP8IsRefused() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let (high, vp8Error) = try await offPool { () -> (MediaDemuxer.StreamInfo?, AVMediaError?) in
            try Self.flv(dir.file("high.flv"), preset: "veryfast", count: 15)
            let high = try MediaDemuxer(url: dir.file("high.flv")).firstStream(video: true)
            let muxer = try MediaMuxer(url: dir.file("a.webm"), container: .webm)
            try MediaMuxerTests.writeVP8AndOpus(muxer, frames: 15)
            try muxer.finish()
            let webm = try MediaDemuxer(url: dir.file("a.webm"))
            do throws(AVMediaError) {
                _ = try webm.makeAnnexBFilter(for: webm.firstStream(video: true)?.index ?? 0)
                return (high, nil)
            } catch {
                return (high, error)
            }
        }
        let stream = try #require(high)
        print("annexb: veryfast is \(stream.codecName) profile \(stream.profile)")
        #expect(stream.codecName == "h264" && !stream.isH264Baseline, "profile \(stream.profile)")
        guard case .some(.invalidParameter) = vp8Error else {
            Issue.record("VP8 was not refused: \(String(describing: vp8Error))")
            return
        }
    }
}
