import Foundation
import SMeetingProtocol
import SRTC

/// The server-side composite video (MCU): every camera of the meeting in one picture, made by the
/// server's egress module and published under a uid of its own, which is not a member. A `.mix`
/// meeting has one from its start, under `SMeetingEngine.mixCompositeUid`; any meeting can get
/// one through the server API (`/server/v1/channel/composite/start`, docs/egress.md).
extension SMeetingEngine {
    /// The uid a `.mix` meeting's composite is published under (`mcu`).
    public static let mixCompositeUid = MeetingMode.mixCompositeUid

    /// Subscribes to the composite video published under `uid` and renders it into `view` (on
    /// Linux any `VideoRenderer`). Requires the server to have a composite task set up; in a `.mix`
    /// meeting it waits up to 5 s for the composite that starts with the meeting.
    /// - Returns: the composite's video track.
    /// - Throws: `.notInMeeting`; `.internalError` when there is no composite video under `uid`.
    @discardableResult
    public func startPlayRemoteVideoMcu(view: NativeVideoView, uid: String) async throws -> RemoteVideoTrack {
        let (_, channel) = try inMeeting()
        let deadline = Date().addingTimeInterval(getRoomInfo()?.mode == .mix ? 5 : 0)
        var found = channel.remoteTrack(uid: uid, desc: TrackDesc.cameraBig.rawValue) as? RemoteVideoTrack
        while found == nil, Date() < deadline {
            try await Task.sleep(for: .milliseconds(50))
            found = channel.remoteTrack(uid: uid, desc: TrackDesc.cameraBig.rawValue) as? RemoteVideoTrack
        }
        // A member's camera is not a composite: the composite's publisher is no member.
        guard let remote = found, (try? getUserInfo(uid)) == nil else {
            throw SMeetingError.internalError("no composite video under uid \(uid)")
        }
        if !remote.isSubscribed { try await channel.subscribe(remote) }
        remote.add(videoRenderer: view)
        state.withLock { s in
            if let previous = s.mcuViews[ObjectIdentifier(view)], previous == remote.id { return }
            s.mcuViews[ObjectIdentifier(view)] = remote.id
            s.playViews[remote.id, default: 0] += 1
        }
        return remote
    }

    /// Unbinds `view` from the composite it shows; unsubscribes once the composite has no view left.
    public func stopPlayRemoteVideoMcu(view: NativeVideoView) async {
        guard let (_, channel) = try? inMeeting() else { return }
        let (trackId, left) = state.withLock { s -> (String?, Int) in
            guard let id = s.mcuViews.removeValue(forKey: ObjectIdentifier(view)) else { return (nil, 0) }
            let n = max(0, (s.playViews[id] ?? 1) - 1)
            s.playViews[id] = n == 0 ? nil : n
            return (id, n)
        }
        guard let trackId, let remote = channel.remoteTrack(trackId: trackId) as? RemoteVideoTrack else { return }
        remote.remove(videoRenderer: view)
        if remote.isSubscribed, left == 0 { try? await channel.unsubscribe(remote) }
    }
}
