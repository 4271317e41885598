import SRTCCore
import Foundation
import Synchronization

/// Opening the preview's camera (seed 000, `startLocalPreview:view:` since 2.5.7): "if the camera
/// can't create an input or outputs no valid video frames after starting, the SDK automatically
/// tries the other available camera". Platform-neutral: each platform lists its candidates (Linux
/// the V4L2 cameras in order, Apple platforms the wanted side then the other) and how to open
/// and close each on the track; this rule decides, from the frames the track really delivers.
enum CameraFallback {
    /// How long an opened camera has to deliver its first frame before the next one is tried.
    /// Webcams and phone cameras start within a second; a camera taken by another process or
    /// with its shutter closed in firmware opens but stays silent.
    static let firstFrameTimeout: Duration = .seconds(4)

    /// One camera to try.
    struct Candidate: Sendable {
        var direction: CameraDirection
        /// Opens it on the track (frames then arrive on the track).
        var open: @Sendable () async throws(SRTCError) -> Void
        /// Closes it again (it sent nothing).
        var close: @Sendable () -> Void
    }

    /// Opens the first candidate that opens and delivers a frame on `track` within `timeout`;
    /// a silent one is closed before the next is opened.
    /// - Returns: where the camera that runs faces.
    /// - Throws: `.notFound` without candidates, else the last failure (`.systemError` for a
    ///   camera that sent nothing).
    static func open(_ candidates: [Candidate], on track: LocalVideoTrack,
                     timeout: Duration = firstFrameTimeout) async throws(SRTCError) -> CameraDirection {
        var failure = SRTCError.notFound("no camera")
        let watch = FirstFrameWatch()
        track.add(videoRenderer: watch)
        defer { track.remove(videoRenderer: watch) }
        for candidate in candidates {
            watch.reset()
            do {
                try await candidate.open()
            } catch {
                failure = error
                continue
            }
            if await watch.waitForFrame(timeout: timeout) { return candidate.direction }
            candidate.close()
            failure = .systemError("the \(candidate.direction.rawValue) camera opened but sent no frame in \(timeout)")
        }
        throw failure
    }
}

/// Counts the frames a track delivers, for `CameraFallback`.
final class FirstFrameWatch: VideoRenderer, Sendable {
    private let frames = Atomic(0)

    func render(frame: VideoFrame) { frames.add(1, ordering: .relaxed) }

    func reset() { frames.store(0, ordering: .relaxed) }

    /// Whether a frame arrived before `timeout` ran out (checked every 10 ms).
    func waitForFrame(timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if frames.load(ordering: .relaxed) > 0 { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return frames.load(ordering: .relaxed) > 0
    }
}
