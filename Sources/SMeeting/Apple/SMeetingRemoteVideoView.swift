#if canImport(SwiftUI) && canImport(AVFoundation) && (os(iOS) || os(macOS))
import SMeetingProtocol
import SRTC
import SwiftUI

/// A member's video in SwiftUI: an `SRTCVideoRenderer` (an `AVSampleBufferDisplayLayer` fed with
/// the decoded frames) bound with `startPlayRemoteVideo` on appear and unbound on disappear, so
/// views of the same member share one subscription. On Linux the class of the same name shows
/// the video in an X11 window.
public struct SMeetingRemoteVideoView: View {
    let meeting: SMeetingEngine
    let uid: String
    let trackDesc: TrackDesc
    @State private var renderer = SRTCVideoRenderer(frame: .zero)

    public init(meeting: SMeetingEngine, uid: String, trackDesc: TrackDesc = .cameraBig) {
        self.meeting = meeting
        self.uid = uid
        self.trackDesc = trackDesc
    }

    public var body: some View {
        RendererHost(renderer: renderer)
            .task {
                _ = try? await meeting.startPlayRemoteVideo(view: renderer, uid: uid, trackDesc: trackDesc)
            }
            .onDisappear {
                let (meeting, renderer, uid, trackDesc) = (meeting, renderer, uid, trackDesc)
                Task { try? await meeting.stopPlayRemoteVideo(view: renderer, uid: uid, trackDesc: trackDesc) }
            }
    }
}

#if os(iOS)
/// Puts the renderer (a `UIView`) into SwiftUI.
struct RendererHost: UIViewRepresentable {
    let renderer: SRTCVideoRenderer
    func makeUIView(context: Context) -> SRTCVideoRenderer { renderer }
    func updateUIView(_ view: SRTCVideoRenderer, context: Context) {}
}
#else
/// Puts the renderer (an `NSView`) into SwiftUI.
struct RendererHost: NSViewRepresentable {
    let renderer: SRTCVideoRenderer
    func makeNSView(context: Context) -> SRTCVideoRenderer { renderer }
    func updateNSView(_ view: SRTCVideoRenderer, context: Context) {}
}
#endif
#endif
