import Foundation
import SRTC
import Synchronization

/// Where a view capture's frames come from when the SDK pulls them: the app renders its view
/// (on Apple platforms `ViewSnapshotSource` does it for a UIKit / AppKit view).
public protocol ViewCaptureSource: AnyObject, Sendable {
    /// The view as it looks now; `nil` skips this tick.
    func captureViewFrame() -> VideoFrame?
}

/// Pulls frames from a `ViewCaptureSource` at a fixed rate on its own thread (capturing and
/// encoding block) and pushes them into the view capture track, until the track is gone or no
/// longer published. A late tick is not made up: a view shows its latest state.
final class ViewCapturePump: Sendable {
    private weak let source: ViewCaptureSource?
    private weak let track: LocalCustomVideoTrack?
    private let interval: Double

    private init(source: ViewCaptureSource, track: LocalCustomVideoTrack, frameRate: Int) {
        self.source = source
        self.track = track
        interval = 1 / Double(max(1, min(frameRate, 60)))
    }

    static func start(source: ViewCaptureSource, track: LocalCustomVideoTrack, frameRate: Int) {
        let pump = ViewCapturePump(source: source, track: track, frameRate: frameRate)
        let thread = Thread { pump.run() }
        thread.name = "view-capture"
        thread.start()
    }

    private func run() {
        var next = Date()
        while let track, track.isPublished, let source {
            if let frame = source.captureViewFrame() { track.pushFrame(frame) }
            next = max(next.addingTimeInterval(interval), Date())
            Thread.sleep(until: next)
        }
    }
}
