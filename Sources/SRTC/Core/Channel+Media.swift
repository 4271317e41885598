import Foundation
import SRTCProtocol

// Publishing and the media side of subscriptions.
extension Channel {
    /// Publishes a local track in this channel. Others get `didAddTrack`; the track's `info`
    /// gets its server id and `trackDidBindRtcTrack` fires.
    public func publishLocalTrack(_ track: LocalTrack) async throws(SRTCError) {
        _ = try liveSignal()
        throw .mediaFailed("publishing is not available yet")
    }

    /// Stops publishing a local track in this channel; others get `didRemoveTrack`.
    public func unpublishLocalTrack(_ track: LocalTrack) async throws(SRTCError) {
        let signal = try liveSignal()
        guard let trackId = track.trackId(in: self) else { throw .wrongState("track is not published here") }
        try await signal.request(.unpublish(UnpublishRequest(trackId: trackId)))
        state.withLock { $0.localTracks[trackId] = nil }
        track.didUnpublish(from: self)
    }

    func handleSubscriberOffer(_ offer: SessionDescriptionMessage) {
        context.logger.debug("subscriber offer revision \(offer.revision)")
    }

    func prepareMediaForSubscription(_ track: RemoteTrack) {}

    func mediaSubscriptionEnded(_ track: RemoteTrack) {}

    func mediaAfterResume() {}
}
