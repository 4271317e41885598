import RTCTransport
import RTCWire
import SFU
import SRTCProtocol

/// The subscribe transport: the server offers, one m-section per subscription, and starts a
/// consumer for a subscription once the client has answered an offer that carries it.
extension ServerNegotiation {
    // MARK: - Types

    /// One m-section of the subscribe transport. Sections are reused after an unsubscribe (a
    /// description never drops an m-section, RFC 8829 §5.2.2).
    struct Slot: Hashable, Sendable {
        let mid: String
        let kind: MediaKind
        var trackId: String?
        var publisherUid: String?
        var ssrc: UInt32 = 0
        /// The SSRC of its RTX stream (RFC 4588), paired with `ssrc` by `a=ssrc-group:FID`; 0: none (audio).
        var rtxSSRC: UInt32 = 0
        var layer: String?
        /// The publisher's codec name (TrackInfo.codec): the subscriber is offered the same.
        var codec: String?
        /// An H.264 track's profile-level-id (TrackInfo.profileLevelID): the subscriber is offered that profile.
        var profileLevelID: String?
        /// The track is end-to-end encrypted (TrackInfo.e2ee): its audio is offered without RED.
        /// Its publisher sends plain Opus (answered without RED), and a browser subscriber hands
        /// a whole RED payload to its decrypting transform, so RED added by the SFU
        /// (docs/network.md) would not decrypt there.
        var e2ee = false
        /// The consumer exists on the SFU.
        var consuming = false
        /// The offer revision that first carried this subscription.
        var offeredIn = 0
    }

    /// An offer to send as `subscriber_offer`.
    struct SubscriberOffer: Hashable, Sendable {
        var sdp: String
        var revision: Int
    }

    /// One subscription for the SFU to start forwarding.
    struct ConsumerPlan: Hashable, Sendable {
        var trackId: String
        var parameters: RTPParameters
        var layer: String?
    }

    /// What a subscriber answer asks of the SFU.
    struct SubscriberAnswerPlan: Hashable, Sendable {
        /// Restart ICE on the existing transport with these client credentials (the answer to a
        /// restart offer); the server's are `subscribeICE`.
        var restartICE: ICECredentials?
        /// Create the subscribe transport (the first answer only).
        var transport: RemoteTransport?
        /// Complete the transport made with the first offer (`PeerTransportParameters.awaitingAnswer`).
        var complete: RemoteTransport?
        var consumers: [ConsumerPlan]
    }

    // MARK: - Subscriptions

    /// Adds a subscription in a free section of its kind (else a new one) and makes the offer.
    /// - Parameter ssrc: the SSRC the server will send it with (random, from the caller).
    /// - Parameter rtxSSRC: video: the SSRC of its RTX stream (random, another than `ssrc`), used
    ///   when the subscriber's answer keeps `rtx` (`applySubscriberAnswer`).
    mutating func subscribe(trackId: String, publisherUid: String, kind: MediaKind, layer: String?, ssrc: UInt32,
                            rtxSSRC: UInt32 = 0, codec: String? = nil, profileLevelID: String? = nil, e2ee: Bool = false) -> SubscriberOffer {
        var slot: Slot
        if let free = slots.firstIndex(where: { $0.trackId == nil && $0.kind == kind }) {
            slot = slots.remove(at: free)
        } else {
            slot = Slot(mid: String(slots.count), kind: kind)
        }
        slot.trackId = trackId
        slot.publisherUid = publisherUid
        slot.layer = layer
        slot.codec = codec
        slot.profileLevelID = profileLevelID
        slot.e2ee = e2ee
        slot.ssrc = ssrc
        slot.rtxSSRC = kind == .video && rtxSSRC != ssrc ? rtxSSRC : 0
        slot.consuming = false
        slot.offeredIn = revision + 1
        slots.append(slot)
        slots.sort { Int($0.mid) ?? 0 < Int($1.mid) ?? 0 }
        return nextOffer()
    }

    /// Adds the data channels to the subscribe transport (docs/protocol.md, "Data channels") and
    /// makes the offer; nil when they are there already. The application section comes first
    /// in this and every later offer (sections never move, RFC 8829 §5.2.2).
    mutating func offerDataChannels() -> SubscriberOffer? {
        guard !dataChannels else { return nil }
        dataChannels = true
        return nextOffer()
    }

    /// Records the layer of a subscription; true when its consumer runs (the SFU must switch now,
    /// else the layer applies when the consumer starts).
    mutating func setLayer(trackId: String, layer: String?) throws(SignalError) -> Bool {
        guard let index = slots.firstIndex(where: { $0.trackId == trackId }) else { throw SignalError(.notFound, "not subscribed to \(trackId)") }
        slots[index].layer = layer
        return slots[index].consuming
    }

    /// Frees the section of a subscription; nil when there is none. `wasConsuming`: close the consumer.
    mutating func unsubscribe(trackId: String) -> (wasConsuming: Bool, offer: SubscriberOffer)? {
        guard let index = slots.firstIndex(where: { $0.trackId == trackId }) else { return nil }
        let wasConsuming = slots[index].consuming
        slots[index].trackId = nil
        slots[index].publisherUid = nil
        slots[index].consuming = false
        return (wasConsuming, nextOffer())
    }

    /// An ICE restart of the subscribe transport: an offer with the server's new credentials;
    /// the client's answer completes it (`applySubscriberAnswer`).
    mutating func restartSubscribeICE(newICE: ICECredentials) -> SubscriberOffer {
        subscribeICE = newICE
        return nextOffer()
    }

    /// Reads the client's answer to offer `answered`: the transport to create or restart, and the
    /// consumers to start (every subscription offered up to that revision that is not running).
    mutating func applySubscriberAnswer(_ text: String, revision answered: Int, transportExists: Bool) throws(SignalError) -> SubscriberAnswerPlan {
        guard answered == revision else {
            throw SignalError(.wrongState, "answer is for offer \(answered); the current offer is \(revision)")
        }
        let answer = try Self.parse(text, "answer")
        let (remoteICE, fingerprint, setup) = try SDPConversions.remoteTransport(of: answer)
        var plan = SubscriberAnswerPlan(consumers: [])
        if transportExists, let known = subscribeRemoteICE, known != remoteICE {
            // The answer to an ICE-restart offer: both sides have new credentials now.
            plan.restartICE = remoteICE
        }
        if transportExists, subscribeRemoteICE == nil {
            // The transport made with the first offer has been answering checks; now it learns the
            // client's credentials and certificate.
            plan.complete = RemoteTransport(ice: remoteICE, fingerprint: fingerprint, dtlsRole: setup == .passive ? .client : .server)
        }
        if !transportExists {
            // We offered actpass; the client's answer picks active (it is the DTLS client) or passive.
            plan.transport = RemoteTransport(ice: remoteICE, fingerprint: fingerprint, dtlsRole: setup == .passive ? .client : .server)
        }
        subscribeRemoteICE = remoteICE
        for slot in slots where !slot.consuming && slot.offeredIn <= answered {
            guard let trackId = slot.trackId, let section = answer.media(mid: slot.mid), !section.isRejected,
                  let codec = section.codecs.first(where: { !$0.isWrapper }) else { continue }
            // RED when the subscriber kept it around that codec: the consumer forwards RED to it.
            let red = section.codecs.first { $0.isRED && $0.redundantPayloadTypes?.allSatisfy { $0 == codec.payloadType } == true }
            let rtx = ServerMedia.answeredRTX(section, codec: codec, rtxSSRC: slot.rtxSSRC)
            let parameters = RTPParameters(mid: slot.mid, codecs: [SDPConversions.codec(codec)] + [red, rtx].compactMap { $0.map(SDPConversions.codec) },
                                           headerExtensions: SDPConversions.extensions(section),
                                           encodings: [RTPEncodingParameters(ssrc: slot.ssrc, rtxSSRC: rtx == nil ? nil : slot.rtxSSRC)],
                                           cname: slot.publisherUid)
            plan.consumers.append(ConsumerPlan(trackId: trackId, parameters: parameters, layer: slot.layer))
        }
        return plan
    }

    /// The SFU started the consumer of `trackId`.
    mutating func consumerStarted(trackId: String) {
        if let index = slots.firstIndex(where: { $0.trackId == trackId }) { slots[index].consuming = true }
    }

    /// Subscriptions whose consumer runs.
    var consumingTrackIds: [String] { slots.filter(\.consuming).compactMap(\.trackId) }

    // MARK: - Offers

    /// The offer of the current slots, with a new revision: `sendonly` with the publisher's
    /// SSRC and msid where a subscription is, `inactive` where a section is free.
    private mutating func nextOffer() -> SubscriberOffer {
        revision += 1
        let media = slots.map { slot -> MediaDescription in
            var codecs = ServerMedia.subscriberCodecs(kind: slot.kind, trackCodec: slot.codec, profileLevelID: slot.profileLevelID)
            if slot.e2ee { codecs.removeAll(where: \.isRED) }
            let codec = codecs[0]
            if slot.kind == .video { codecs.append(ServerMedia.rtx(for: codec)) }
            var section = MediaDescription(kind: slot.kind, mid: slot.mid, direction: slot.trackId == nil ? .inactive : .sendonly,
                                           codecs: codecs, extensions: ServerMedia.subscriberExtensions(for: slot.kind, codec: codec))
            section.rtcpMux = true
            section.rtcpReducedSize = true
            if let trackId = slot.trackId, let publisher = slot.publisherUid {
                section.addSendStream(ssrc: slot.ssrc, rtxSSRC: slot.rtxSSRC == 0 ? nil : slot.rtxSSRC, cname: publisher,
                                      streamID: publisher, trackID: trackId)
            }
            return section
        }
        let data = dataChannels ? [MediaDescription.dataChannel(mid: Self.dataChannelMid, maxMessageSize: UInt64(SCTPAssociation.maxMessageSize))] : []
        var offer = SessionDescription.offer(sessionID: sessionID, transport: transportParameters(subscribeICE, setup: .actpass),
                                             media: data + media, iceLite: true)
        // Two-byte header extensions (RFC 8285 §6): an AV1 key frame's Dependency Descriptor is longer than 16 bytes.
        offer.extmapAllowMixed = true
        offer.origin.sessionVersion = subscribeVersion
        subscribeVersion += 1
        return SubscriberOffer(sdp: offer.serialize(), revision: revision)
    }
}
