import TestWait
import Foundation
import MediaTestSupport
import RTCAV
import RTCMedia
import Testing

/// Files written by `MediaMuxer` with libavformat's muxers, read back by libavformat and by ffprobe.
/// The writing, probing and decoding block, so they run off the cooperative pool (`offPool`) that
/// the other suites share; the expectations run in the test's own task.
@Suite struct MediaMuxerTests {
    static let width = 160, height = 96, fps = 25

    /// `count` test-pattern frames encoded with VP8 and 20 ms Opus packets of a 440 Hz tone, into `muxer`.
    static func writeVP8AndOpus(_ muxer: MediaMuxer, frames count: Int, firstNumber: Int = 0, startUs: Int64 = 0) throws {
        let video = try muxer.addStream(.video(.vp8, width: width, height: height, frameRate: fps))
        let audio = try muxer.addStream(.opus(channels: 1))
        try muxer.start()
        let pattern = try TestPatternGenerator(width: width, height: height, frameRate: fps)
        var vp8 = VP8Encoder.Configuration(width: width, height: height)
        vp8.frameRate = fps
        let encoder = try VP8Encoder(configuration: vp8)
        let opus = try OpusEncoder()
        var tone = SineToneGenerator(frequency: 440, amplitude: 0.4)
        var audioUs: Int64 = 0
        for i in 0..<count {
            let us = startUs + Int64(i) * 1_000_000 / Int64(fps)
            if let encoded = try encoder.encode(pattern.videoFrame(number: firstNumber + i), forceKeyFrame: i == 0) {
                try muxer.write(stream: video, bytes: encoded.data, ptsUs: us, isKeyFrame: encoded.isKeyFrame)
            }
            while audioUs <= Int64(i) * 1_000_000 / Int64(fps) {
                try muxer.write(stream: audio, bytes: try opus.encode(tone.next(frameCount: 960)), ptsUs: startUs + audioUs,
                                durationUs: 20_000, isKeyFrame: true)
                audioUs += 20_000
            }
        }
    }

    /// H.264 at the test size, a key frame every second.
    static func h264(for muxer: MediaMuxer) throws -> AVH264Encoder {
        var configuration = AVH264Encoder.Configuration(width: width, height: height)
        configuration.frameRate = fps
        configuration.keyFrameInterval = fps
        configuration.globalHeader = muxer.wantsGlobalHeader
        return try AVH264Encoder(configuration: configuration)
    }

    static func tone(_ samples: [Float], rate: Int) -> Double? {
        FrequencyEstimator.zeroCrossingFrequency(Array(samples.dropFirst(4_800)), sampleRate: rate)
    }

    @Test func webmWithVP8AndOpusReadsBackFrameByFrame() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let (probe, decoded) = try await offPool {
            let muxer = try MediaMuxer(url: dir.file("a.webm"), container: .webm)
            try Self.writeVP8AndOpus(muxer, frames: 50)
            try muxer.finish()
            return (try MediaProbe(dir.file("a.webm")), try DecodedMediaFile(url: dir.file("a.webm")))
        }
        #expect(probe.codecs.sorted() == ["opus", "vp8"])
        #expect(probe.videoFrames == 50)
        let duration = try #require(probe.duration)
        #expect(abs(duration - 2.0) < 0.1, "duration \(duration)")
        #expect(decoded.frameNumbers == Array(0..<50))
        let hz = try #require(Self.tone(decoded.audio, rate: decoded.sampleRate))
        #expect(abs(hz - 440) < 5, "tone at \(hz) Hz")
    }

    @Test func aWebMCutShortBeforeFinishPlaysUpToItsLastCluster() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let (probe, decoded) = try await offPool {
            let muxer = try MediaMuxer(url: dir.file("live.webm"), container: .webm)
            try Self.writeVP8AndOpus(muxer, frames: 100)   // 4 s: clusters of at most 1 s are on disk
            // What a crash leaves: the bytes on disk now, without the trailer.
            try FileManager.default.copyItem(atPath: dir.file("live.webm"), toPath: dir.file("crashed.webm"))
            try muxer.finish()
            return (try MediaProbe(dir.file("crashed.webm")), try DecodedMediaFile(url: dir.file("crashed.webm")))
        }
        #expect(decoded.frameNumbers.count >= 50, "\(decoded.frameNumbers.count) frames readable")
        #expect(decoded.frameNumbers == Array(0..<decoded.frameNumbers.count))
        #expect(probe.codecs.sorted() == ["opus", "vp8"])
    }

    @Test func fragmentedMP4WithH264AndAACReadsBack() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let path = dir.file("a.mp4")
        let (probe, decoded) = try await offPool {
            let muxer = try MediaMuxer(url: path, container: .fragmentedMP4)
            let h264 = try Self.h264(for: muxer)
            let aac = try AACEncoder(channels: 1, globalHeader: muxer.wantsGlobalHeader)
            let video = try muxer.addStream(h264.streamSpec)
            let audio = try muxer.addStream(aac.streamSpec)
            try muxer.start()
            let pattern = try TestPatternGenerator(width: Self.width, height: Self.height, frameRate: Self.fps)
            var tone = SineToneGenerator(frequency: 1_000, amplitude: 0.4)
            for i in 0..<75 {
                let us = Int64(i) * 40_000
                for packet in try h264.encode(pattern.videoFrame(number: i), ptsUs: us) { try muxer.write(stream: video, packet: packet) }
                for packet in try aac.encode(interleaved: tone.next(frameCount: 1_920).floatSamples, ptsUs: us) { try muxer.write(stream: audio, packet: packet) }
            }
            for packet in try h264.flush() { try muxer.write(stream: video, packet: packet) }
            for packet in try aac.flush() { try muxer.write(stream: audio, packet: packet) }
            try muxer.finish()
            return (try MediaProbe(path), try DecodedMediaFile(url: path))
        }
        #expect(probe.codecs.sorted() == ["aac", "h264"])
        #expect(probe.videoFrames == 75)
        #expect(decoded.frameNumbers == Array(0..<75))
        let hz = try #require(Self.tone(decoded.audio, rate: decoded.sampleRate))
        #expect(abs(hz - 1_000) < 10, "tone at \(hz) Hz")
    }

    @Test func hlsKeepsASlidingPlaylistAndDeletesOldSegments() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let playlist = dir.file("index.m3u8")
        let (text, onDisk, probe, decoded) = try await offPool {
            let muxer = try MediaMuxer(url: playlist, container: .hls(segmentSeconds: 1, listSize: 3))
            let h264 = try Self.h264(for: muxer)
            let video = try muxer.addStream(h264.streamSpec)
            try muxer.start()
            let pattern = try TestPatternGenerator(width: Self.width, height: Self.height, frameRate: Self.fps)
            for i in 0..<(8 * Self.fps) {
                for packet in try h264.encode(pattern.videoFrame(number: i), ptsUs: Int64(i) * 40_000) { try muxer.write(stream: video, packet: packet) }
            }
            let text = try String(contentsOfFile: playlist, encoding: .utf8)
            let onDisk = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".ts") }
            let last = text.split(separator: "\n").last { $0.hasSuffix(".ts") }.map(String.init) ?? ""
            let result = (text, onDisk, try MediaProbe(dir.file(last)), try DecodedMediaFile(url: dir.file(last)))
            try muxer.finish()
            return result
        }
        let listed = text.split(separator: "\n").filter { $0.hasSuffix(".ts") }
        #expect(listed.count == 3, "\(text)")
        #expect(onDisk.count <= 5, "old segments deleted: \(onDisk.sorted())")
        let numbers = onDisk.compactMap { Int($0.dropFirst("segment_".count).dropLast(3)) }.sorted()
        #expect(numbers.count == onDisk.count && numbers.first.map { $0 > 1_700_000_000 } == true, "epoch-based numbers: \(onDisk)")
        // The newest listed segment is H.264 in MPEG-TS and decodes to consecutive pattern frames.
        #expect(probe.codecs == ["h264"])
        let first = try #require(decoded.frameNumbers.first)
        #expect(decoded.frameNumbers.count >= Self.fps / 2)
        #expect(decoded.frameNumbers == Array(first..<(first + decoded.frameNumbers.count)))
    }

    @Test func refusesCodecsTheContainerCannotHold() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let muxer = try MediaMuxer(url: dir.file("a.webm"), container: .webm)
        #expect(throws: AVMediaError.self) { try muxer.addStream(.video(.h264, width: 64, height: 48)) }
        #expect(throws: AVMediaError.wrongState("write outside start()…finish()")) {
            try muxer.write(stream: 0, bytes: [1], ptsUs: 0, isKeyFrame: true)
        }
    }

    @Test func anUnwritableDirectoryIsAClearError() throws {
        let muxer = try MediaMuxer(url: "/proc/srtc-no-such-dir/a.webm", container: .webm)
        try muxer.addStream(.opus(channels: 1))
        #expect(throws: AVMediaError.self) { try muxer.start() }
    }

    @Test func aFullDiskIsAWriteErrorNotACrash() async throws {
        // /dev/full accepts the open and fails every write with ENOSPC, as a filled disk does.
        let failure: AVMediaError? = try await offPool {
            let muxer = try MediaMuxer(url: "/dev/full", container: .webm)
            try muxer.addStream(.opus(channels: 1))
            do throws(AVMediaError) {
                try muxer.start()
                for i in 0..<200 { try muxer.write(stream: 0, bytes: [UInt8](repeating: 0xF8, count: 200), ptsUs: Int64(i) * 20_000, isKeyFrame: true) }
                try muxer.finish()
                return nil
            } catch {
                return error
            }
        }
        guard case .failed(_, let code, _)? = failure else { Issue.record("no write error: \(String(describing: failure))"); return }
        #expect(code == -ENOSPC)
    }
}
