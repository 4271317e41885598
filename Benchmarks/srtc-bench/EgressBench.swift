// Egress benchmarks: the composite's video path per output frame, as an `srtc-egress` worker runs
// it for a 1280×720 grid of 640×360 cameras: decode every input's VP8 frame, compose the tiles
// (scaled with libswscale, aspect kept), encode the big layer and the quarter-size small layer
// (the SDK's simulcast). Printed as CPU milliseconds per output frame, never asserted.
import EgressProtocol
import EgressWorker
import Foundation
import RTCMedia

/// Runs the egress benchmarks and prints their figures.
func runEgressBenchmarks() {
    print("== egress")
    do {
        for tiles in [1, 4, 9] { try benchmarkComposite(tiles: tiles) }
    } catch {
        print("egress benchmark failed: \(error)")
    }
    runEgressWorkerBenchmarks()
}

/// CPU time of this process (all threads: the encoders may use more than one), in seconds.
private func processCPUSeconds() -> Double { CPUTime.process() / 1e6 }

private func benchmarkComposite(tiles: Int, inputWidth: Int = 640, inputHeight: Int = 360, width: Int = 1_280, height: Int = 720) throws {
    let frameCount = 90
    // Each input: its own numbered test pattern, encoded once up front (a key frame, then deltas).
    let pattern = try TestPatternGenerator(width: inputWidth, height: inputHeight)
    var inputs: [[EncodedVideoFrame]] = []
    for tile in 0..<tiles {
        var configuration = VP8Encoder.Configuration(width: inputWidth, height: inputHeight)
        configuration.bitrate = 600_000
        let encoder = try VP8Encoder(configuration: configuration)
        inputs.append(try (0..<frameCount).compactMap { try encoder.encode(pattern.videoFrame(number: tile * 1_000 + $0)) })
    }
    let decoders = try inputs.map { _ in try VP8Decoder() }
    let compositor = try VideoCompositor(width: width, height: height, layout: .grid)
    let ids = (0..<tiles).map { "TR_\($0)" }
    compositor.setSources(ids)
    var big = VP8Encoder.Configuration(width: width, height: height)
    big.bitrate = 2_000_000
    var small = VP8Encoder.Configuration(width: width / 4, height: height / 4)
    small.bitrate = 200_000
    let bigEncoder = try VP8Encoder(configuration: big), smallEncoder = try VP8Encoder(configuration: small)

    var decode = 0.0, compose = 0.0, encode = 0.0
    let cpuStart = processCPUSeconds()
    for n in 0..<frameCount {
        var t = processCPUSeconds()
        for (index, decoder) in decoders.enumerated() {
            if let frame = try decoder.decode(inputs[index][n % inputs[index].count]) { compositor.update(ids[index], frame: frame) }
        }
        var now = processCPUSeconds()
        decode += now - t
        t = now
        let picture = compositor.compose()
        now = processCPUSeconds()
        compose += now - t
        t = now
        let frame = VideoFrame(buffer: picture, timestampUs: Int64(n) * 33_333)
        _ = try bigEncoder.encode(frame)
        _ = try smallEncoder.encode(VideoFrame(buffer: picture.scaled(width: width / 4, height: height / 4), timestampUs: frame.timestampUs))
        now = processCPUSeconds()
        encode += now - t
    }
    let total = processCPUSeconds() - cpuStart
    let perFrame = { (seconds: Double) in seconds * 1_000 / Double(frameCount) }
    print(String(format: "composite %d × %dx%d → %dx%d grid: %.1f ms CPU/output frame (decode %.1f, compose %.1f, encode big+small %.1f); "
                 + "30 fps needs %.0f %% of a core",
                 tiles, inputWidth, inputHeight, width, height, perFrame(total), perFrame(decode), perFrame(compose), perFrame(encode),
                 perFrame(total) * 30 / 10))
}
