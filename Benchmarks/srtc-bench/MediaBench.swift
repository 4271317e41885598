// Media benchmarks: VP8 720p encode (real-time settings) and decode per frame, Opus 20 ms encode and decode,
// and the per-packet cost of VP8 packetizing and reassembly. Figures are printed, never asserted.
import RTCMedia

/// Runs the RTCMedia benchmarks and prints their figures.
func runMediaBenchmarks() {
    print("== media")
    do {
        try benchmarkVP8(width: 1_280, height: 720, bitrate: 1_500_000, cpuUsed: -6)
        try benchmarkVP8(width: 1_280, height: 720, bitrate: 1_500_000, cpuUsed: -8)
        try benchmarkVP8(width: 640, height: 360, bitrate: 600_000, cpuUsed: -6)
        try benchmarkOpus()
        try benchmarkVP8Packets()
        try benchmarkConversions()
    } catch {
        print("media benchmark failed: \(error)")
    }
}

private func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

private func benchmarkVP8(width: Int, height: Int, bitrate: Int, cpuUsed: Int) throws {
    let pattern = try TestPatternGenerator(width: width, height: height)
    let source = (0..<30).map { pattern.buffer(number: $0) }
    var configuration = VP8Encoder.Configuration(width: width, height: height)
    configuration.bitrate = bitrate
    configuration.cpuUsed = cpuUsed
    let encoder = try VP8Encoder(configuration: configuration)
    let frameCount = 300
    var encoded: [EncodedVideoFrame] = []
    encoded.reserveCapacity(frameCount)
    let clock = ContinuousClock()
    let encodeTime = try clock.measure {
        for index in 0..<frameCount {
            let frame = VideoFrame(buffer: source[index % source.count], timestampUs: Int64(index) * 33_333)
            if let output = try encoder.encode(frame) { encoded.append(output) }
        }
    }
    let decoder = try VP8Decoder()
    var decoded = 0
    let decodeTime = try clock.measure {
        for frame in encoded where try decoder.decode(frame) != nil { decoded += 1 }
    }
    let bytes = encoded.reduce(0) { $0 + $1.data.count }
    let encodeSeconds = seconds(encodeTime), decodeSeconds = seconds(decodeTime)
    print(String(format: "vp8 %dx%d cpu-used %d: encode %.2f ms/frame (%.0f fps), decode %.2f ms/frame (%.0f fps), %.0f kbit/s at 30 fps",
                 width, height, cpuUsed, encodeSeconds * 1_000 / Double(frameCount), Double(frameCount) / encodeSeconds,
                 decodeSeconds * 1_000 / Double(max(1, decoded)), Double(decoded) / decodeSeconds,
                 Double(bytes) * 8 * 30 / Double(max(1, encoded.count)) / 1_000))
}

private func benchmarkOpus() throws {
    let encoder = try OpusEncoder()
    let decoder = try OpusDecoder()
    var tone = SineToneGenerator(frequency: 440)
    let input = (0..<50).map { _ in tone.next(frameCount: 960).int16Samples }
    var packet = [UInt8](repeating: 0, count: 1_500)
    var pcm = [Int16](repeating: 0, count: 960)
    let frames = 2_000
    var lengths: [Int] = []
    lengths.reserveCapacity(frames)
    var packets: [[UInt8]] = []
    let clock = ContinuousClock()
    let encodeTime = try clock.measure {
        for index in 0..<frames {
            let length = try input[index % input.count].withUnsafeBufferPointer { samples in
                try packet.withUnsafeMutableBytes { try encoder.encode(samples, into: $0) }
            }
            lengths.append(length)
            if index < 50 { packets.append(Array(packet[0..<length])) }
        }
    }
    let decodeTime = try clock.measure {
        for index in 0..<frames {
            _ = try packets[index % packets.count].withUnsafeBytes { bytes in
                try pcm.withUnsafeMutableBufferPointer { try decoder.decode(bytes, into: $0) }
            }
        }
    }
    print(String(format: "opus 48 kHz mono 20 ms: encode %.1f µs/frame, decode %.1f µs/frame (%.0f× real time encode)",
                 seconds(encodeTime) * 1e6 / Double(frames), seconds(decodeTime) * 1e6 / Double(frames),
                 Double(frames) * 0.020 / seconds(encodeTime)))
}

private func benchmarkVP8Packets() throws {
    var packetizer = VP8Packetizer()
    let frame = (0..<60_000).map { UInt8(truncatingIfNeeded: $0) }
    var assembler = VP8FrameAssembler()
    var sequence: UInt16 = 0
    var packets = 0
    let rounds = 2_000
    let clock = ContinuousClock()
    let time = try clock.measure {
        for round in 0..<rounds {
            try frame.withUnsafeBytes { bytes in
                try packetizer.packetize(bytes) { payload, isLast in
                    _ = try assembler.push(payload: payload, sequenceNumber: sequence, timestamp: UInt32(round), marker: isLast)
                    sequence &+= 1
                    packets += 1
                }
            }
        }
    }
    print(String(format: "vp8 packetize + reassemble: %.0f ns/packet (%d packets)", seconds(time) * 1e9 / Double(packets), packets))
}

private func benchmarkConversions() throws {
    let i420 = try TestPatternGenerator(width: 1_280, height: 720).buffer(number: 1)
    let clock = ContinuousClock()
    for format in [VideoPixelBuffer.Format.nv12, .bgra] {
        let source = i420.converted(to: format)
        let rounds = 30
        var checksum = 0
        let time = clock.measure {
            for _ in 0..<rounds { checksum &+= Int(source.toI420().data[1_000]) }
        }
        print(String(format: "%@ → i420 1280x720: %.2f ms/frame (checksum %d)", format.rawValue,
                     seconds(time) * 1_000 / Double(rounds), checksum))
    }
}
