/// Events of one track. Register with `track.delegates.add(delegate: self)`.
///
/// Every method has a default empty implementation. Events arrive on the engine's delegate queue.
public protocol TrackDelegate: AnyObject {
    /// The track's info was updated (server id assigned, layers, muted).
    func track(_ track: Track, didUpdateInfo info: TrackInfo)
    /// The track was muted.
    func trackDidMute(_ track: Track)
    /// The track was unmuted.
    func trackDidUnmute(_ track: Track)
    /// The track ended: unpublished, its publisher left, or its channel was left.
    func trackDidEnd(_ track: Track)
    /// The media path under the track is bound: for a remote track, its subscription's receiver
    /// exists, so renderers will get frames; for a local track, its sender is in a publish offer.
    func trackDidBindRtcTrack(_ track: Track)
    /// Screen broadcast from another process (iOS full-screen sharing; `startScreenRecordListening`):
    /// the extension connected and video started. Fires on the broadcast's screen track.
    func screenBroadcastDidStart(_ track: Track)
    /// The broadcast ended, also when the user stopped it from the system pill. `reason`:
    /// `finished` (the extension ended it), `stopped` (this app did), `disconnected` (the
    /// extension went away without a word), `invalid` (it sent bytes that are not a broadcast).
    func screenBroadcastDidFinish(_ track: Track, reason: String)
}

extension TrackDelegate {
    public func track(_ track: Track, didUpdateInfo info: TrackInfo) {}
    public func trackDidMute(_ track: Track) {}
    public func trackDidUnmute(_ track: Track) {}
    public func trackDidEnd(_ track: Track) {}
    public func trackDidBindRtcTrack(_ track: Track) {}
    public func screenBroadcastDidStart(_ track: Track) {}
    public func screenBroadcastDidFinish(_ track: Track, reason: String) {}
}
