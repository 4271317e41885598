import Foundation
import SRTCProtocol

// The track objects: what `TrackMachine` decides about publications and subscriptions is done
// here to the `LocalTrack` and `RemoteTrack` objects (on `queue`). The objects keep a mirror of
// the machine's state for their own getters (`RemoteTrack.isSubscribed`, `requestedLayer`).
extension Channel {
    /// Feeds the server's answer to one of the app's track requests to the machine, on `queue`.
    @discardableResult
    func answered(_ event: TrackMachine.Event) async -> [Machine.Action] {
        await onQueue { [self] in step(.track(event)) }
    }

    /// Records `track` as published as `info`: the machine's publication, then the object it
    /// binds (unless the channel left while the publish was under way).
    func bind(_ track: LocalTrack, as info: TrackInfo) async {
        await onQueue { [self] in
            guard step(.track(.published(info, local: ObjectIdentifier(track)))).contains(.track(.bindLocalTrack(info))) else { return }
            state.sync { $0.localTracks[info.id] = track }
            track.didPublish(in: self, info: info)
        }
    }

    /// Carries out one of `TrackMachine`'s actions (on `queue`).
    func execute(_ action: TrackMachine.Action) {
        switch action {
        case .addRemoteTrack(let info):
            let track = makeRemoteTrack(info)
            state.sync { $0.remoteTracks[info.id] = track }
            resumeTrackWaiters(for: track)
        case .updateRemoteTrack(let info):
            state.sync { $0.remoteTracks[info.id] }?.update(info: info)
        case .removeRemoteTrack(let trackId):
            state.sync { $0.remoteTracks.removeValue(forKey: trackId) }?.end()
        case .startSubscription(let trackId, let layer):
            state.sync { $0.remoteTracks[trackId] }?.setSubscribed(true, layer: layer)
        case .endSubscription(let trackId):
            guard let track = state.sync({ $0.remoteTracks[trackId] }) else { return }
            track.setSubscribed(false, layer: nil)
            mediaSubscriptionEnded(track)
        case .setRequestedLayer(let trackId, let layer):
            state.sync { $0.remoteTracks[trackId] }?.setRequestedLayer(layer)
        case .setCurrentLayer(let trackId, let layer):
            (state.sync { $0.remoteTracks[trackId] } as? RemoteVideoTrack)?.setCurrentLayer(layer)
        case .setNeededLayers(let needed):
            // Dynacast: layers nobody receives stop being encoded, and come back with a key frame.
            let (media, track) = state.sync { ($0.media, $0.localTracks[needed.trackId]) }
            if let media, let track { media.publish.setNeededLayers(of: track, layers: needed.layers) }
        case .bindLocalTrack:
            break  // the publish flow binds the object it holds (`bind(_:as:)`)
        case .unbindLocalTrack(let trackId):
            state.sync { $0.localTracks.removeValue(forKey: trackId) }?.didUnpublish(from: self)
        case .rebindLocalTrack(let from, let info):
            guard let track = state.sync({ $0.localTracks.removeValue(forKey: from) }) else { return }
            state.sync { $0.localTracks[info.id] = track }
            track.didPublish(in: self, info: info)
        }
    }
}
