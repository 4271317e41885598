import SMeetingProtocol
import SRTC

/// View capture: a `screen` track the app feeds with frames of one of its views (a whiteboard
/// canvas, a slide, a game). The meeting allows it under the sharing rules, without a sharing
/// state (no `roomShareDidStart`): the app manages that itself and keeps view capture and screen
/// sharing apart. Frames come from the app: `pushViewCaptureFrame(_:)`, the returned track, or a
/// `ViewCaptureSource` the SDK pulls at a frame rate (`ViewSnapshotSource` snapshots a UIKit /
/// AppKit view on Apple platforms).
extension SMeetingEngine {
    /// My view capture track, while it runs.
    public var viewCaptureTrack: LocalVideoTrack? { state.withLock { $0.viewCaptureTrack } }

    /// Publishes a view capture track (desc `screen`); calling it again returns the same track.
    /// - Throws: `.notInMeeting`; `.internalError` when a screen track already exists;
    ///   `.unauthorized` when sharing is disabled for members; `.apiError` 40904 when someone
    ///   else holds the screen; publishing errors.
    @discardableResult
    public func startViewCaptureShare() async throws -> LocalVideoTrack {
        let (client, channel) = try inMeeting()
        if let track = viewCaptureTrack { return track }
        if screenTrack != nil || broadcastTrack != nil { throw SMeetingError.internalError("a screen sharing track already exists") }
        _ = try await client.call(.startViewCapture, EmptyPayload(), MeetingUserInfo.self)
        // Views change little from frame to frame; keep their resolution rather than their rate.
        let track = srtc.createLocalCustomVideoTrack(desc: TrackDesc.screen.rawValue, preset: Self.viewCapturePreset, simulcast: false)
        do {
            try await channel.publishLocalTrack(track)
            state.withLock { $0.viewCaptureTrack = track }
            return track
        } catch {
            _ = try? await client.call(.stopViewCapture, EmptyPayload(), MeetingUserInfo.self)
            throw error
        }
    }

    /// Starts a view capture fed by `source` at `frameRate` frames per second, on a thread of
    /// its own, until `stopViewCaptureShare()`.
    @discardableResult
    public func startViewCaptureShare(source: ViewCaptureSource, frameRate: Int = 15) async throws -> LocalVideoTrack {
        let track = try await startViewCaptureShare()
        guard let custom = track as? LocalCustomVideoTrack else { return track }
        ViewCapturePump.start(source: source, track: custom, frameRate: frameRate)
        return track
    }

    /// Feeds the view capture track. Returns `false` when no view capture runs.
    @discardableResult
    public func pushViewCaptureFrame(_ frame: VideoFrame) -> Bool {
        (viewCaptureTrack as? LocalCustomVideoTrack)?.pushFrame(frame) ?? false
    }

    /// Ends the view capture: unpublishes its track (the microphone stays). Never throws;
    /// `stopShare()` does not end a view capture.
    public func stopViewCaptureShare() async {
        guard let (client, _) = try? inMeeting() else { return }
        await unpublishViewCapture()
        _ = try? await client.call(.stopViewCapture, EmptyPayload(), MeetingUserInfo.self)
    }

    func unpublishViewCapture() async {
        let (track, channel) = state.withLock { s -> (LocalVideoTrack?, Channel?) in defer { s.viewCaptureTrack = nil }; return (s.viewCaptureTrack, s.channel) }
        if let track, let channel { try? await channel.unpublishLocalTrack(track) }
    }

    /// 1080p at 15 fps: a view's detail matters more than its motion.
    static let viewCapturePreset = VideoPreset(width: 1920, height: 1080, frameRate: 15, maxBitrate: 2_000_000)
}
