// Render module benchmarks: the beauty filter and the virtual background on 720p camera frames,
// on one core (the pushing thread), through a camera track's pipeline. Figures are printed,
// never asserted.
import Foundation
import RTCMedia
import SRTC

/// Runs the render module benchmarks and prints their figures.
func runRenderBenchmarks() {
    print("== render")
    do {
        let pattern = try TestPatternGenerator(width: 1_280, height: 720)
        let frames = (0..<30).map { pattern.videoFrame(number: $0) }
        try measureRender("pass-through (everything off)", frames: frames) { _ in }
        try measureRender("beauty, default levels", frames: frames) { engine in
            try engine.installRenderModule()
            try engine.enabledBeauty(true)
        }
        try measureRender("virtual background, blur 5", frames: frames) { engine in
            try engine.installVirtualBackground(segmenter: BackgroundModelSegmenter(backgroundPlate: frames[0].buffer))
            try engine.enabledVirtualBackground(true)
        }
        try measureRender("virtual background, image", frames: frames) { engine in
            try engine.installVirtualBackground(segmenter: BackgroundModelSegmenter(backgroundPlate: frames[0].buffer))
            engine.setVirtualBackgroundImage(pattern.buffer(number: 99))
            try engine.enabledVirtualBackground(true)
        }
        try measureRender("virtual background, blur 5, inference every 3rd frame", frames: frames) { engine in
            try engine.installVirtualBackground(segmenter: BackgroundModelSegmenter(backgroundPlate: frames[0].buffer))
            engine.setVirtualBackgroundInferenceInterval(3)
            try engine.enabledVirtualBackground(true)
        }
        try measureRender("beauty + virtual background blur 5", frames: frames) { engine in
            try engine.installRenderModule()
            try engine.enabledBeauty(true)
            try engine.installVirtualBackground(segmenter: BackgroundModelSegmenter(backgroundPlate: frames[0].buffer))
            try engine.enabledVirtualBackground(true)
        }
    } catch {
        print("render benchmark failed: \(error)")
    }
}

/// Pushes 300 frames through an unpublished `camera_big` track (render module, no encoding)
/// and prints the mean time per frame.
private func measureRender(_ name: String, frames: [VideoFrame], setUp: (SRTCEngine) throws -> Void) throws {
    let engine = SRTCEngine(independent: .init(delegateQueue: DispatchQueue(label: "bench"), logLevel: .off))
    try setUp(engine)
    let track = engine.createLocalCustomVideoTrack(desc: "camera_big", preset: .h720p)
    for frame in frames.prefix(5) { track.pushFrame(frame) }   // warm-up: buffers, tables
    let count = 300
    let start = DispatchTime.now().uptimeNanoseconds
    for index in 0..<count { track.pushFrame(frames[index % frames.count]) }
    let ms = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6 / Double(count)
    print(String(format: "render 1280x720 %@: %.2f ms/frame (%.0f fps on one core)", name, ms, 1_000 / ms))
}
