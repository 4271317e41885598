import SRTCProtocol

/// The media of a session whose subscriptions a relay serves elsewhere (another node,
/// `EdgeParticipantMedia`; another worker, `PipedParticipantMedia`): it publishes where every
/// publisher of the channel does, on the channel's router (`publishing`).
protocol RelayedParticipantMedia: ParticipantMedia {
    /// The publishing side, on the channel's worker.
    var publishing: SFUParticipantMedia { get }
}

extension RelayedParticipantMedia {
    func publish(offer: String, tracks: [PublishTrack], trackIds: [String: String]) async throws(SignalError) -> String {
        try await publishing.publish(offer: offer, tracks: tracks, trackIds: trackIds)
    }

    func unpublish(trackId: String, offer: String?) async throws(SignalError) -> String? {
        try await publishing.unpublish(trackId: trackId, offer: offer)
    }

    func setMuted(trackId: String, muted: Bool) async {
        await publishing.setMuted(trackId: trackId, muted: muted)
    }
}
