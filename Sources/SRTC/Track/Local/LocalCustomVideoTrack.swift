import Foundation
import RTCMedia

/// A video track fed by the app: call `pushFrame` with every frame you produce (a game engine,
/// a compositor, generated or decoded video). No `startCapture()`; the SDK makes no frames.
///
/// ```swift
/// let track = srtc.createLocalCustomVideoTrack(desc: "canvas")
/// try await channel.publishLocalTrack(track)
/// track.pushFrame(frame)
/// ```
// @unchecked Sendable: restates LocalVideoTrack's conformance; it adds no stored state.
public final class LocalCustomVideoTrack: LocalVideoTrack, @unchecked Sendable {
    /// Pushes one frame. It runs through `videoProcessors` and is encoded on the calling thread.
    /// - Returns: whether the frame went on (false when a processor dropped it).
    @discardableResult
    public func pushFrame(_ frame: VideoFrame) -> Bool {
        deliver(frame) != nil
    }

    /// Pushes pixels with a presentation time in microseconds (now when omitted).
    @discardableResult
    public func pushFrame(_ pixelBuffer: VideoPixelBuffer, timestampUs: Int64? = nil, rotation: VideoRotation = .rotation0) -> Bool {
        let time = timestampUs ?? Int64(DispatchTime.now().uptimeNanoseconds / 1_000)
        return pushFrame(VideoFrame(buffer: pixelBuffer, timestampUs: time, rotation: rotation))
    }
}
