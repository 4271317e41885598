import Foundation
import RTCTransport
import SRTCProtocol

// Publishing, the subscribe transport's negotiation, and keeping the media path alive.
extension Channel {
    // MARK: - Publishing

    /// Publishes a local track in this channel: the publish transport is (re)negotiated with a
    /// new `sendonly` section, then the track's frames are encoded and sent. Others get
    /// `didAddTrack`; the track's `info` gets its server id and `trackDidBindRtcTrack` fires.
    /// Needs the token's `publish` permission.
    public func publishLocalTrack(_ track: LocalTrack) async throws(SRTCError) {
        let signal = try liveSignal()
        try state.sync { (s) throws(SRTCError) in try s.machine.tracks.checkPublish(ObjectIdentifier(track)) }
        let media = try ensureMedia()
        try await media.publishLock.run { () async throws(SRTCError) in
            let section = media.publish.add(track)
            let offer = media.publish.makeOffer()
            let announced = PublishTrack(mid: section.mid, kind: track.kind, desc: track.desc, muted: track.isMuted,
                                         layers: media.publish.announcedLayers(of: track), e2ee: media.encryptsOutgoing ? true : nil)
            var refused: (trackId: String, codec: VideoCodec?)?
            do throws(SRTCError) {
                let data = try await signal.request(.publish(PublishRequest(sdp: offer, tracks: [announced])))
                guard case .answer(let answer) = data, let info = answer.tracks.first else {
                    throw .mediaFailed("publish was answered without an SDP answer")
                }
                try media.publish.applyAnswer(answer.sdp)
                if let only = section.onlyCodec, media.publish.videoCodec(mid: section.mid) != only {
                    // Frames that come encoded cannot be sent in another codec: taken back below.
                    refused = (info.id, media.publish.videoCodec(mid: section.mid))
                } else {
                    media.publish.attach(mid: section.mid)
                    await bind(track, as: info)
                    context.logger.info("published \(track.desc) as \(info.id)")
                }
            } catch {
                media.publish.discard(mid: section.mid)
                throw error
            }
            if let refused {
                // The server announced the track: it is unpublished again (its section stays,
                // inactive, as mids are never reused).
                media.publish.remove(mid: section.mid)
                let data = try? await signal.request(.unpublish(UnpublishRequest(trackId: refused.trackId, sdp: media.publish.makeOffer())))
                if case .answer(let answer)? = data { try? media.publish.applyAnswer(answer.sdp) }
                throw .mediaFailed("the server did not accept \(section.onlyCodec?.rawValue ?? "?") for an encoded track (answered \(refused.codec?.rawValue ?? "no codec"))")
            }
        }
    }

    /// Stops publishing a local track in this channel; others get `didRemoveTrack`. The track
    /// itself stays usable (publish it again, or in another channel).
    public func unpublishLocalTrack(_ track: LocalTrack) async throws(SRTCError) {
        let signal = try liveSignal()
        let trackId = try state.sync { (s) throws(SRTCError) in try s.machine.tracks.publication(of: ObjectIdentifier(track)) }
        let media = try ensureMedia()
        try await media.publishLock.run { () async throws(SRTCError) in
            var offer: String?
            if let mid = media.publish.mid(of: track) {
                media.publish.remove(mid: mid)
                offer = media.publish.makeOffer()
            }
            let data = try await signal.request(.unpublish(UnpublishRequest(trackId: trackId, sdp: offer)))
            if case .answer(let answer) = data { try? media.publish.applyAnswer(answer.sdp) }
            await answered(.unpublished(trackId: trackId))
        }
    }

    // MARK: - Subscribe transport

    /// Answers a `subscriber_offer` (on `queue`): receivers for the sections that carry tracks,
    /// then `subscriber_answer` with the same revision.
    func handleSubscriberOffer(_ offer: SessionDescriptionMessage) {
        guard let media = try? ensureMedia() else { return }
        guard offer.revision >= media.subscribe.latestRevision else {
            context.logger.debug("ignoring stale subscriber offer \(offer.revision)")
            return
        }
        do {
            let result = try media.subscribe.apply(offer: offer.sdp, revision: offer.revision) { [self] id in
                state.sync { $0.remoteTracks[id] }
            }
            for track in result.unbound { track.unbind() }
            for track in result.bound { track.bind() }
            let signal = state.sync { $0.signal }
            let logger = context.logger
            // Connect once the server has the answer: it creates its side of the transport
            // then, so the first ICE check is not lost to a not-yet-known ufrag.
            Task {
                _ = try? await signal?.request(.subscriberAnswer(SessionDescriptionMessage(sdp: result.answer, revision: offer.revision)))
                do { try media.subscribe.connect(for: result) } catch {
                    logger.warning("could not connect the subscribe transport: \(error)")
                }
            }
        } catch {
            context.logger.warning("could not answer subscriber offer \(offer.revision): \(error)")
        }
    }

    func prepareMediaForSubscription(_ track: RemoteTrack) {
        _ = try? ensureMedia()
    }

    func mediaSubscriptionEnded(_ track: RemoteTrack) {}

    // MARK: - Media path

    /// The channel's media side, made on first use.
    func ensureMedia() throws(SRTCError) -> ChannelMedia {
        let (media, made) = try state.sync { (s) throws(SRTCError) -> (ChannelMedia, Bool) in
            if let media = s.media { return (media, false) }
            let media = try ChannelMedia(context: context, e2ee: s.e2ee)
            media.relay.update(s.machine.iceServers)
            s.media = media
            return (media, true)
        }
        if made {
            if let e2ee = media.e2ee {
                // Media is made after the join answered, so the uid frames are sent as is known.
                if let uid { e2ee.setLocalUid(uid) }
                e2ee.stateChanged.set { [weak self] uid, state in
                    guard let self else { return }
                    delegates.notify { [self] in $0.channel(self, e2eeStateChanged: uid, state: state) }
                }
            }
            media.publish.onStateChange { [weak self] state in
                guard state == .failed, let self else { return }
                queue.async { self.mediaPathFailed(.publish) }
            }
            media.subscribe.onStateChange { [weak self] state in
                guard state == .failed, let self else { return }
                queue.async { self.mediaPathFailed(.subscribe) }
            }
            media.subscribe.dataEvents.set { [weak self] event in
                guard let self else { return }
                queue.async { self.step(.dataEvent(event)) }
            }
            media.subscribe.dataMessages.set { [weak self] message in
                guard let self else { return }
                queue.async { self.receiveData(message) }
            }
            media.subscribe.undecryptableData.set { [weak self] failure in
                guard let self else { return }
                queue.async { self.delegates.notify { [self] in $0.channel(self, didFailToDecryptData: failure) } }
            }
        }
        return media
    }

    /// After a resume (or a path that moved), restart ICE on any transport whose path broke or
    /// moved meanwhile.
    func mediaAfterResume() {
        guard let media = state.sync({ $0.media }) else { return }
        let broken = media.needsICERestart
        if broken.publish { mediaPathFailed(.publish) }
        if broken.subscribe { mediaPathFailed(.subscribe) }
    }

    /// A transport failed (ICE consent lost or DTLS failed): ICE restart over signaling when the
    /// signaling connection is up; otherwise the resume will do it.
    func mediaPathFailed(_ role: TransportRole) {
        guard connectionState == .connected, let media = state.sync({ $0.media }) else { return }
        context.logger.info("\(role.rawValue) media path failed or moved; restarting ICE")
        media.restarting(role)
        Task { [self] in
            guard let signal = try? liveSignal() else { return media.pathMoved(role) }
            switch role {
            case .publish:
                await media.publishLock.run { () async -> Void in
                    let previous = media.publish.restartICE()
                    let offer = media.publish.makeOffer()
                    do {
                        if case .answer(let answer) = try await signal.request(.restartICE(RestartICERequest(transport: .publish, sdp: offer))) {
                            try media.publish.applyAnswer(answer.sdp)
                        }
                    } catch {
                        // The server kept the old credentials: so must the next offer. The
                        // next resume (or path check) tries again.
                        media.publish.restoreICE(previous)
                        media.pathMoved(.publish)
                        context.logger.warning("publish ICE restart failed: \(error)")
                    }
                }
            case .subscribe:
                let previous = media.subscribe.restartICE()
                do {
                    try await signal.request(.restartICE(RestartICERequest(transport: .subscribe)))
                } catch {
                    media.subscribe.restoreICE(previous)
                    media.pathMoved(.subscribe)
                    context.logger.warning("subscribe ICE restart failed: \(error)")
                }
            }
        }
    }
}
