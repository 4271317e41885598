import Foundation
import MediaTestSupport
import Processes
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
            return try Self.annexB(dir.file("baseline.flv"))
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

    /// An FLV file of `count` numbered frames encoded by Debian's ffmpeg (libx264) with `x264`
    /// settings (`-profile:v main -bf 0`, …), a key frame every `fps` frames.
    static func ffmpegFLV(_ dir: TemporaryDirectory, _ name: String, x264: [String], count: Int) throws -> String {
        let y4m = dir.file(name + ".y4m"), flv = dir.file(name + ".flv")
        let writer = try Y4MWriter(path: y4m, width: width, height: height, frameRate: fps)
        let pattern = try TestPatternGenerator(width: width, height: height, frameRate: fps)
        for n in 0..<count { try writer.write(pattern.videoFrame(number: n)) }
        try writer.close()
        let (status, output) = try ChildProcess.run(["/usr/bin/ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-y", "-i", y4m,
                                                     "-c:v", "libx264"] + x264 + ["-crf", "16", "-g", String(fps), "-pix_fmt", "yuv420p", "-f", "flv", flv])
        guard status == 0 else { throw AVMediaError.invalidParameter("ffmpeg exited with \(status): \(output)") }
        return flv
    }

    /// The stream's info and its Annex B access units.
    static func annexB(_ url: String) throws -> (MediaDemuxer.StreamInfo?, [H264AnnexBFilter.AccessUnit]) {
        let demuxer = try MediaDemuxer(url: url)
        let info = demuxer.firstStream(video: true)
        let filter = try demuxer.makeAnnexBFilter(for: info?.index ?? 0)
        var units: [H264AnnexBFilter.AccessUnit] = []
        let packet = MediaPacket()
        while try demuxer.read(into: packet) {
            if packet.streamIndex == info?.index { units += try filter.filter(packet) }
        }
        return (info, units)
    }

    /// docs/ingress.md, "H.264 passthrough": Main and High without B-frames are carried as they
    /// are (their profile-level-id offered), and OpenH264 gives each picture at once, in order;
    /// Main with B-frames is told apart by its reordering (the SPS's `max_num_reorder_frames`).
    @Test(arguments: [(["-preset", "veryfast", "-profile:v", "main", "-bf", "0"], "4d00"),
                      (["-preset", "veryfast", "-profile:v", "high", "-bf", "0"], "6400")])
    func mainAndHighWithoutBFramesAreCarriedAsTheyAreAndDecodeInOrder(x264: [String], prefix: String) async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let (info, numbers, delays) = try await offPool { () -> (MediaDemuxer.StreamInfo?, [Int], Int) in
            let (info, units) = try Self.annexB(Self.ffmpegFLV(dir, "nob", x264: x264, count: 45))
            let decoder = try H264Decoder()
            var numbers: [Int] = [], withoutPicture = 0
            for unit in units {
                guard let frame = try decoder.decode(unit.bytes) else { withoutPicture += 1; continue }
                if let n = TestPatternReader.frameNumber(in: frame) { numbers.append(n) }
            }
            return (info, numbers, withoutPicture)
        }
        let stream = try #require(info)
        print("annexb: \(x264) is profile \(stream.profile) level \(stream.level), profile-level-id \(stream.h264ProfileLevelID ?? "-"), "
              + "reorders \(stream.reordersFrames); \(numbers.count) decoded, \(delays) units without a picture")
        #expect(stream.isH264WithoutReordering && !stream.isH264Baseline)
        #expect(stream.h264ProfileLevelID?.hasPrefix(prefix) == true, "\(stream.h264ProfileLevelID ?? "-")")
        // Each unit gives its own picture at once: none held back for reordering.
        #expect(numbers == Array(0..<45) && delays == 0, "\(numbers)")
    }

    @Test func mainWithBFramesReordersAndIsNotCarriedAsItIs() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let info = try await offPool {
            try Self.annexB(Self.ffmpegFLV(dir, "bf", x264: ["-preset", "veryfast", "-profile:v", "main", "-bf", "2"], count: 30)).0
        }
        let stream = try #require(info)
        #expect(stream.h264ProfileLevelID?.hasPrefix("4d00") == true)
        #expect(stream.reordersFrames && !stream.isH264WithoutReordering, "profile \(stream.profile)")
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
