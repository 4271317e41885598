/// A video renderer that says how large it shows its video. With adaptive stream
/// (`SRTCEngine.Configuration.adaptiveStream`, docs/sdk-srtc.md "Adaptive stream") a subscribed
/// remote video is asked of the server at the smallest layer that fills its widest shown renderer,
/// and not at all while none shows it. `SRTCVideoRenderer` is one (the X11 window on Linux, the
/// view on Apple platforms); a renderer that is not sized takes every frame at the best layer.
public protocol SizedVideoRenderer: VideoRenderer {
    /// The width and height, in device pixels, at which the video is shown now; nil while it is
    /// not shown (hidden, closed, minimized, zero size). Read on the channel's queue four times a
    /// second: answer from any thread, quickly.
    var shownSize: (width: Int, height: Int)? { get }
}
