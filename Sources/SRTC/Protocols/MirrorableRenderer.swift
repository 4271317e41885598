/// A renderer that can show its pictures flipped left to right. The engine's local preview sets
/// `mirrored` on its view by the mirror rule (`SRTCEngine.setLocalPreviewMirror(_:)`); the frames
/// themselves, and so what channels publish, are never flipped. `SRTCVideoRenderer` is one on
/// every platform (Linux flips while drawing, Apple platforms flip the display layer); a renderer
/// of the app's own that is not one is given frames as captured.
public protocol MirrorableRenderer: VideoRenderer {
    /// Whether pictures are shown flipped left to right.
    var mirrored: Bool { get set }
}
