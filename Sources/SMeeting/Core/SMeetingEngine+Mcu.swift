import Foundation
import RTCNet
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
            try await TimerQueue.shared.sleep(for: .milliseconds(50))
            found = channel.remoteTrack(uid: uid, desc: TrackDesc.cameraBig.rawValue) as? RemoteVideoTrack
        }
        // A member's camera is not a composite: the composite's publisher is no member.
        guard let remote = found, (try? getUserInfo(uid)) == nil else {
            throw SMeetingError.internalError("no composite video under uid \(uid)")
        }
        // A view showing an earlier composite track (one restarted since) lets go of it first.
        if let shown = state.withLock({ $0.mcuViews[ObjectIdentifier(view)] }), shown != remote.id { await stopPlayRemoteVideoMcu(view: view) }
        let adapter = LayerViewAdapter(view: view, maxSize: nil)
        let bound = state.withLock { s -> Bool in
            if s.mcuViews[ObjectIdentifier(view)] == remote.id { return false }
            s.mcuViews[ObjectIdentifier(view)] = remote.id
            s.videoBindings[remote.id, default: VideoBindings()].views.append(.init(adapter: adapter, layer: .cameraBig))
            return true
        }
        guard bound else { return remote }
        remote.add(videoRenderer: adapter)
        do { try await followBindings(remote, in: channel) } catch {
            await stopPlayRemoteVideoMcu(view: view)
            throw error
        }
        return remote
    }

    /// Unbinds `view` from the composite it shows; unsubscribes once the composite has no view left.
    public func stopPlayRemoteVideoMcu(view: NativeVideoView) async {
        guard let (_, channel) = try? inMeeting() else { return }
        let unbound = state.withLock { s -> (String, LayerViewAdapter)? in
            guard let id = s.mcuViews.removeValue(forKey: ObjectIdentifier(view)),
                  let index = s.videoBindings[id]?.views.firstIndex(where: { $0.adapter.shows(view) && $0.layer == .cameraBig })
            else { return nil }
            guard let adapter = s.videoBindings[id]?.views.remove(at: index).adapter else { return nil }
            return (id, adapter)
        }
        guard let (trackId, removed) = unbound, let remote = channel.remoteTrack(trackId: trackId) as? RemoteVideoTrack else { return }
        remote.remove(videoRenderer: removed)
        try? await followBindings(remote, in: channel)
    }
}
