// What tests use to check media files and streams: a temporary directory, ffprobe's view of a
// file (Debian's ffmpeg package, installed by scripts/install-deps), and a file decoded back to
// test-pattern frame numbers and PCM with the project's own demuxer and decoders.
import Foundation
import Processes
import RTCAV
import RTCMedia

/// A fresh temporary directory, removed by `cleanUp()`.
public struct TemporaryDirectory: Sendable {
    public let path: String

    public init(prefix: String = "srtc-test") throws {
        path = NSTemporaryDirectory() + prefix + "-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    public func file(_ name: String) -> String { path + "/" + name }
    public func cleanUp() { try? FileManager.default.removeItem(atPath: path) }
}

/// What a media file holds, decoded with `MediaDemuxer` and `MediaDecoder`.
public struct DecodedMediaFile: Sendable {
    /// Test-pattern numbers of the video frames that carry one, in decode order.
    public var frameNumbers: [Int] = []
    /// Presentation times of every video frame, microseconds.
    public var videoTimesUs: [Int64] = []
    /// Size of every video frame as decoded, "WxH" (parallel to `videoTimesUs`).
    public var videoFrameSizes: [String] = []
    /// Presentation time of each numbered frame, microseconds (parallel to `frameNumbers`).
    public var numberedTimesUs: [Int64] = []
    /// The first channel of the audio, as float samples.
    public var audio: [Float] = []
    public var sampleRate = 0
    public var streams: [MediaDemuxer.StreamInfo] = []
    /// The parts of each picture read apart (a composite's tiles, `init(url:tiles:)`).
    public let tiles: [(x: Int, y: Int, width: Int, height: Int)]
    /// For each of `tiles`, the numbers read in it, in decode order.
    public var tileNumbers: [[Int]]

    /// Decodes every packet of `url`, reading the frame numbers of the whole picture and, apart,
    /// of each of `tiles` (a composite shows one source per tile).
    public init(url: String, tiles: [(x: Int, y: Int, width: Int, height: Int)] = []) throws {
        self.tiles = tiles
        tileNumbers = tiles.map { _ in [] }
        let demuxer = try MediaDemuxer(url: url)
        streams = demuxer.streams
        var decoders: [Int: MediaDecoder] = [:]
        for stream in demuxer.streams { decoders[stream.index] = try demuxer.makeDecoder(for: stream.index) }
        let packet = MediaPacket()
        while try demuxer.read(into: packet) {
            guard let decoder = decoders[packet.streamIndex] else { continue }
            take(try decoder.decode(packet))
        }
        for decoder in decoders.values { take(try decoder.flush()) }
    }

    private mutating func take(_ media: [DecodedMedia]) {
        for item in media {
            switch item {
            case .video(let frame):
                videoTimesUs.append(frame.timestampUs)
                videoFrameSizes.append("\(frame.width)x\(frame.height)")
                if let n = TestPatternReader.frameNumber(in: frame) {
                    frameNumbers.append(n)
                    numberedTimesUs.append(frame.timestampUs)
                }
                if !tiles.isEmpty { readTiles(frame) }
            case .audio(let pcm):
                sampleRate = pcm.sampleRate
                audio += pcm.channel(0)
            }
        }
    }

    private mutating func readTiles(_ frame: VideoFrame) {
        let picture = frame.buffer.toI420()
        for (index, r) in tiles.enumerated() {
            if let n = (try? picture.cropped(x: r.x, y: r.y, width: r.width, height: r.height)).flatMap(TestPatternReader.frameNumber(in:)) {
                tileNumbers[index].append(n)
            }
        }
    }
}

/// `ffprobe`'s account of a file: codecs, container duration, counted video frames.
public struct MediaProbe: Sendable {
    public var codecs: [String] = []
    public var duration: Double?
    public var videoFrames: Int?

    /// Runs `ffprobe -count_frames` on `path` (blocking: call it off the cooperative pool).
    public init(_ path: String) throws {
        let probe = try ChildProcess("/usr/bin/ffprobe", ["-v", "error", "-count_frames", "-show_entries",
                                                          "stream=codec_name,nb_read_frames:format=duration", "-of", "json", path],
                                     pipeOutput: true)
        let data = probe.output!.readDataToEndOfFile()
        _ = probe.waitUntilExit()
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        for stream in object["streams"] as? [[String: Any]] ?? [] {
            let codec = stream["codec_name"] as? String ?? "?"
            codecs.append(codec)
            if ["h264", "vp8", "vp9", "av1"].contains(codec) { videoFrames = Int(stream["nb_read_frames"] as? String ?? "") }
        }
        duration = ((object["format"] as? [String: Any])?["duration"] as? String).flatMap(Double.init)
    }
}
