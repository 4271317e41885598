import Foundation
import RTCAV
import RTCMedia

/// A fresh temporary directory, removed by `cleanUp()`.
struct TemporaryDirectory {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "srtc-av-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String { path + "/" + name }
    func cleanUp() { try? FileManager.default.removeItem(atPath: path) }
}

/// What a file holds, read back with the demuxer and decoders.
struct DecodedFile {
    var frameNumbers: [Int] = []
    var videoTimesUs: [Int64] = []
    var audio: [Float] = []
    var sampleRate = 0
    var streams: [MediaDemuxer.StreamInfo] = []

    init(url: String) throws {
        let demuxer = try MediaDemuxer(url: url)
        streams = demuxer.streams
        var decoders: [Int: MediaDecoder] = [:]
        for stream in demuxer.streams { decoders[stream.index] = try demuxer.makeDecoder(for: stream.index) }
        let packet = MediaPacket()
        func take(_ media: [DecodedMedia]) {
            for item in media {
                switch item {
                case .video(let frame):
                    if let n = TestPatternReader.frameNumber(in: frame) { frameNumbers.append(n) }
                    videoTimesUs.append(frame.timestampUs)
                case .audio(let pcm):
                    sampleRate = pcm.sampleRate
                    audio += pcm.channel(0)
                }
            }
        }
        while try demuxer.read(into: packet) {
            guard let decoder = decoders[packet.streamIndex] else { continue }
            take(try decoder.decode(packet))
        }
        for decoder in decoders.values { take(try decoder.flush()) }
    }
}

/// `ffprobe` facts about a file (Debian's ffmpeg package, installed by scripts/install-deps).
struct Probe {
    var codecs: [String] = []
    var duration: Double?
    var videoFrames: Int?

    init(_ path: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
        process.arguments = ["-v", "error", "-count_frames", "-show_entries", "stream=codec_name,nb_read_frames:format=duration",
                             "-of", "json", path]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        for stream in object["streams"] as? [[String: Any]] ?? [] {
            let codec = stream["codec_name"] as? String ?? "?"
            codecs.append(codec)
            if ["h264", "vp8"].contains(codec) { videoFrames = Int(stream["nb_read_frames"] as? String ?? "") }
        }
        duration = ((object["format"] as? [String: Any])?["duration"] as? String).flatMap(Double.init)
    }
}
