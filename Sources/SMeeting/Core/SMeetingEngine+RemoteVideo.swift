import Foundation
import SMeetingProtocol
import SRTC

/// Remote video. `.cameraBig` and `.cameraSmall` are the two simulcast layers of one camera
/// track, so a member's camera is one subscription: it follows the largest layer any view (or
/// `subscribeRemoteVideoTrack` call) asks for, and a view that asked for `camera_small` while
/// the subscription carries `camera_big` gets the frames scaled down to the small layer's size.
/// Two views of the same member at different layers each get their layer at once.
extension SMeetingEngine {
    /// Subscribes to a member's video without a view: the returned track's own renderers get
    /// the subscription's frames. Asking for the other camera layer switches the subscription
    /// (without renegotiation) unless a view needs the bigger one.
    /// - Throws: `.notInMeeting`; `.internalError` when the member has no such track.
    @discardableResult
    public func subscribeRemoteVideoTrack(uid: String, trackDesc: TrackDesc) async throws -> RemoteVideoTrack {
        let (_, channel) = try inMeeting()
        let (desc, layer) = try Self.videoTarget(trackDesc)
        let remote = try await remoteVideoTrack(channel, uid: uid, desc: desc, trackDesc: trackDesc)
        state.withLock { $0.videoBindings[remote.id, default: VideoBindings()].explicit = .some(layer) }
        try await followBindings(remote, in: channel)
        return remote
    }

    /// Unsubscribes a member's video, whatever views still use it; silent when there is no such track.
    public func unsubscribeRemoteVideoTrack(uid: String, trackDesc: TrackDesc) async throws {
        let (_, channel) = try inMeeting()
        guard let (desc, _) = try? Self.videoTarget(trackDesc), let remote = channel.remoteTrack(uid: uid, desc: desc) as? RemoteVideoTrack else { return }
        let bindings = state.withLock { $0.videoBindings.removeValue(forKey: remote.id) }
        for view in bindings?.views ?? [] { remote.remove(videoRenderer: view.adapter) }
        if remote.isSubscribed { try await channel.unsubscribe(remote) }
    }

    /// Subscribes and renders the member's `trackDesc` into `view` (on Linux any `VideoRenderer`).
    @discardableResult
    public func startPlayRemoteVideo(view: NativeVideoView, uid: String, trackDesc: TrackDesc) async throws -> RemoteVideoTrack {
        let (_, channel) = try inMeeting()
        let (desc, layer) = try Self.videoTarget(trackDesc)
        let remote = try await remoteVideoTrack(channel, uid: uid, desc: desc, trackDesc: trackDesc)
        let small = remote.info?.layers.first { $0.desc == VideoLayer.cameraSmall.rawValue }
        var maxSize: (width: Int, height: Int)?
        if layer == .cameraSmall, let width = small?.width, let height = small?.height { maxSize = (width, height) }
        let adapter = LayerViewAdapter(view: view, maxSize: maxSize)
        state.withLock { $0.videoBindings[remote.id, default: VideoBindings()].views.append(.init(adapter: adapter, layer: layer)) }
        remote.add(videoRenderer: adapter)
        do { try await followBindings(remote, in: channel) } catch {
            _ = try? await stopPlayRemoteVideo(view: view, uid: uid, trackDesc: trackDesc)
            throw error
        }
        return remote
    }

    /// Unbinds `view` from the member's `trackDesc`; unsubscribes once the track has no view
    /// (nor explicit subscription) left, else the subscription follows the views that remain.
    public func stopPlayRemoteVideo(view: NativeVideoView, uid: String, trackDesc: TrackDesc) async throws {
        let (_, channel) = try inMeeting()
        guard let (desc, layer) = try? Self.videoTarget(trackDesc), let remote = channel.remoteTrack(uid: uid, desc: desc) as? RemoteVideoTrack else { return }
        let removed = state.withLock { s -> LayerViewAdapter? in
            guard let index = s.videoBindings[remote.id]?.views.firstIndex(where: { $0.adapter.shows(view) && $0.layer == layer })
            else { return nil }
            return s.videoBindings[remote.id]?.views.remove(at: index).adapter
        }
        guard let removed else { return }
        remote.remove(videoRenderer: removed)
        try await followBindings(remote, in: channel)
    }

    // MARK: - Internals

    /// Subscribes, switches or unsubscribes `remote` to what its bindings need now.
    func followBindings(_ remote: RemoteVideoTrack, in channel: Channel) async throws {
        let wanted = state.withLock { s -> VideoBindings.Need in
            let need = s.videoBindings[remote.id]?.need ?? .none
            if case .none = need { s.videoBindings[remote.id] = nil }
            return need
        }
        switch wanted {
        case .none:
            if remote.isSubscribed { try await channel.unsubscribe(remote) }
        case .layer(let layer):
            if !remote.isSubscribed {
                try await channel.subscribe(remote, layer: layer)
            } else if let layer, remote.requestedLayer != layer {
                try await channel.switchLayer(remote, to: layer)
            }
        }
    }

    static func videoTarget(_ desc: TrackDesc) throws(SMeetingError) -> (String, VideoLayer?) {
        switch desc {
        case .cameraBig: return ("camera_big", .cameraBig)
        case .cameraSmall: return ("camera_big", .cameraSmall)
        case .screen: return ("screen", nil)
        case .mic: throw .internalError("mic is not a video track")
        }
    }

    /// The member's video track; waits up to 5 s for the channel to add it when the meeting says
    /// it is published (meeting state can arrive before the channel's track).
    private func remoteVideoTrack(_ channel: Channel, uid: String, desc: String, trackDesc: TrackDesc) async throws -> RemoteVideoTrack {
        let announced = (try? getUserInfo(uid))?.trackDescs.contains(trackDesc) ?? false
        guard let remote = await channel.remoteTrack(uid: uid, desc: desc, waitingUpTo: .seconds(announced ? 5 : 0)) as? RemoteVideoTrack else {
            throw SMeetingError.internalError("\(uid) has no \(trackDesc.rawValue) track")
        }
        return remote
    }
}

/// What is bound to one remote video track: views at a layer, and an explicit subscription.
struct VideoBindings {
    struct View {
        let adapter: LayerViewAdapter
        let layer: VideoLayer?
    }

    enum Need: Equatable {
        case none
        /// Subscribed at this layer (`nil`: the track's only stream, or its best).
        case layer(VideoLayer?)
    }

    var views: [View] = []
    /// `subscribeRemoteVideoTrack` asked for this layer (`.some(nil)`: a track without layers).
    var explicit: VideoLayer??

    /// The largest layer anyone asks for.
    var need: Need {
        let layers = views.map(\.layer) + (explicit.map { [$0] } ?? [])
        guard !layers.isEmpty else { return .none }
        if layers.contains(.cameraBig) { return .layer(.cameraBig) }
        if layers.contains(.cameraSmall) { return .layer(.cameraSmall) }
        return .layer(nil)
    }
}

/// Shows a subscription's frames in one view; a view bound to the small layer gets bigger frames
/// scaled down to the small layer's size (the subscription carries the big layer for another
/// view of the same member).
// @unchecked Sendable: `view` is set in init and never reassigned (weak loads are atomic); frames reach it on the subscription's render thread, as SRTC renderers expect.
final class LayerViewAdapter: VideoRenderer, @unchecked Sendable {
    private weak var view: VideoRenderer?
    private let maxSize: (width: Int, height: Int)?

    init(view: VideoRenderer, maxSize: (width: Int, height: Int)?) {
        self.view = view
        self.maxSize = maxSize
    }

    func shows(_ other: VideoRenderer) -> Bool { view === other }

    func render(frame: VideoFrame) {
        guard let view else { return }
        guard let (width, height) = maxSize, frame.width > width || frame.height > height else {
            view.render(frame: frame)
            return
        }
        view.render(frame: VideoFrame(buffer: frame.buffer.scaled(width: width, height: height), timestampUs: frame.timestampUs,
                                      rotation: frame.rotation))
    }
}
