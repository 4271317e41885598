#if canImport(SwiftUI) && canImport(AVFoundation) && (os(iOS) || os(macOS))
import SRTC
import SwiftUI

/// A member's video in SwiftUI: subscribes on appear, unsubscribes on disappear. Apple only; on
/// Linux use `startPlayRemoteVideo(view:uid:trackDesc:)` with any `VideoRenderer`.
public struct SMeetingRemoteVideoView: View {
    let meeting: SMeetingEngine
    let uid: String
    let trackDesc: TrackDesc
    @State private var sink = FrameSink()

    public init(meeting: SMeetingEngine, uid: String, trackDesc: TrackDesc = .cameraBig) {
        self.meeting = meeting
        self.uid = uid
        self.trackDesc = trackDesc
    }

    public var body: some View {
        Color.black
            .task {
                _ = try? await meeting.startPlayRemoteVideo(view: sink, uid: uid, trackDesc: trackDesc)
            }
            .onDisappear {
                Task { try? await meeting.stopPlayRemoteVideo(view: sink, uid: uid, trackDesc: trackDesc) }
            }
    }

    /// Receives the frames (drawing them is left to the SRTC views).
    final class FrameSink: VideoRenderer, @unchecked Sendable {
        func render(frame: VideoFrame) {}
    }
}
#endif
