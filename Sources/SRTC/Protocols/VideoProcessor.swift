/// Processes the frames of a local video track before they are encoded (beauty filters,
/// watermarks, segmentation...). Set a track's `videoProcessors`; they run serially in array
/// order on the thread that pushed the frame.
///
/// ```swift
/// final class PassThroughProcessor: VideoProcessor {
///     func processVideoFrame(_ frame: VideoFrame) -> VideoFrame? { frame }
/// }
/// ```
public protocol VideoProcessor: AnyObject {
    /// Returns the frame to pass on (the same one, or a new one), or `nil` to drop it.
    func processVideoFrame(_ frame: VideoFrame) -> VideoFrame?
}

/// Receives the decoded frames of a remote video track, or the frames of a local one
/// (after its processors). Called on the track's media thread: copy or hand off quickly.
public protocol VideoRenderer: AnyObject {
    /// One frame to show.
    func render(frame: VideoFrame)
}
