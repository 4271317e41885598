/// The engine's local preview in this channel (seed 000: capture is the process's, publishing is
/// each channel's choice). See `PreviewPublishing` for the rule.
extension Channel {
    /// Whether this channel sends the engine's local preview (seed 000's `publishLocalVideo:`; on
    /// by default): on, the preview is published while the channel is joined, as soon as both a
    /// preview runs and the channel is joined; off, what the engine published here is unpublished.
    /// - Throws: the publish or unpublish error when a preview runs and the channel is joined
    ///   (the switch is kept either way).
    public func publishLocalVideo(_ publish: Bool) async throws(SRTCError) {
        state.sync { $0.publishesLocalVideo = publish }
        try await syncPreview()
    }

    /// This channel's `publishLocalVideo` switch.
    public var publishesLocalVideo: Bool { published.read().publishesLocalVideo }

    /// Publishes or unpublishes the engine's preview as `PreviewPublishing` says; one run at a
    /// time, so a preview change and a join that cross do not publish twice.
    func syncPreview() async throws(SRTCError) {
        guard engineType == .sfu else { return }
        try await previewLock.run { () async throws(SRTCError) in
            let preview = engine?.localPreviewTrack
            let (joined, wanted, sent) = state.sync { ($0.machine.connection == .connected, $0.publishesLocalVideo, $0.previewSent) }
            let steps = PreviewPublishing.steps(preview: preview, joined: joined, wanted: wanted, sent: sent,
                                                previewPublished: preview.map { $0.trackId(in: self) != nil } ?? false)
            for step in steps {
                switch step {
                case .unpublish(let track):
                    state.sync { $0.previewSent = nil }
                    // Gone already when the channel left (teardown unpublishes everything).
                    if track.trackId(in: self) != nil { try await unpublishLocalTrack(track) }
                case .publish(let track):
                    try await publishLocalTrack(track)
                    state.sync { $0.previewSent = track }
                }
            }
        }
    }

    /// `syncPreview()` where nobody waits for the outcome (a join, a preview change): a failure
    /// is logged.
    func syncPreviewLogged() async {
        do {
            try await syncPreview()
        } catch {
            context.logger.warning("could not publish the local preview: \(error)")
        }
    }
}
