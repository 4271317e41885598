import RTCMedia
import RTCNet
import RTCTransport
import RTCWire

/// The SDP this client writes and reads (RFC 8829 JSEP over RTCWire's model):
/// the publish offer (client offers, `sendonly`, `a=setup:actpass`), the reading of the server's
/// answers and `subscriber_offer`s, and the subscribe answer (`recvonly`, `a=setup:active`).
package enum SDPNegotiation {
    // MARK: - Types

    /// One m-section of the publish transport.
    package struct PublishSection: Sendable, Equatable {
        package var mid: String
        package var kind: TrackKind
        /// `a=msid` stream and track labels (the track label is local; the server assigns ids).
        package var streamLabel: String
        package var trackLabel: String
        /// SSRCs of the streams, best layer first.
        package var ssrcs: [UInt32]
        /// Simulcast rids, best first (`h`, `l`); empty for one stream.
        package var rids: [String]
        /// False once unpublished: the section stays (mids are never reused) as `inactive`.
        package var active: Bool = true
        /// The only video codec offered (a `LocalEncodedVideoTrack`'s: its frames come encoded);
        /// nil offers the usual list.
        package var onlyCodec: VideoCodec?
        /// The H.264 `profile-level-id` offered (RFC 6184 §8.1): a `LocalEncodedVideoTrack`'s;
        /// nil offers Constrained Baseline level 3.1.
        package var h264ProfileLevelID: String?

        package init(mid: String, kind: TrackKind, streamLabel: String, trackLabel: String, ssrcs: [UInt32], rids: [String]) {
            self.mid = mid
            self.kind = kind
            self.streamLabel = streamLabel
            self.trackLabel = trackLabel
            self.ssrcs = ssrcs
            self.rids = rids
        }
    }

    /// What a remote description says about one m-section.
    package struct RemoteSection: Sendable, Equatable {
        package var mid: String
        package var kind: TrackKind?
        /// The remote side's direction.
        package var direction: Direction
        package var rejected: Bool
        /// The forwarded codec's payload type (Opus, VP8 or H.264), when negotiated.
        package var payloadType: UInt8?
        /// Audio: the payload type of RED (RFC 2198) around that Opus, when the section lists it.
        package var redPayloadType: UInt8? = nil
        /// Audio: the Opus codec's `usedtx=1` (RFC 7587 §6.1): the receiver prefers DTX.
        package var usesDTX = false
        /// Audio: the Opus codec's `useinbandfec=1` (RFC 7587 §6.1): the receiver can use in-band FEC.
        package var usesInbandFEC = false
        /// For video: the first codec of the section this client encodes and decodes (the answer
        /// and a `subscriber_offer` carry one).
        package var videoCodec: VideoCodec?
        package var midID: UInt8?
        package var ridID: UInt8?
        package var audioLevelID: UInt8?
        /// The transport-wide sequence number extension (draft-holmer-rmcat-transport-wide-cc-extensions-01).
        package var transportCCID: UInt8? = nil
        /// The AV1 Dependency Descriptor extension (av1-rtp-spec Appendix A), when negotiated.
        package var dependencyDescriptorID: UInt8? = nil
        /// Whether the forwarded codec has generic NACK feedback (RFC 4585 §4.2): for audio, the
        /// receiver asks for lost packets (video always does).
        package var nack = false
        package var ssrcs: [UInt32]
        /// `a=msid` track id: the server's track id in a `subscriber_offer`.
        package var trackID: String?
        package var streamID: String?
    }

    /// The transport half of a remote description (shared by all sections with BUNDLE).
    package struct RemoteDescription: Sendable, Equatable {
        package var iceUfrag: String
        package var icePwd: String
        package var fingerprint: DTLSFingerprint
        package var setup: SetupRole?
        package var candidates: [ICECandidate]
        package var iceLite: Bool
        package var sections: [RemoteSection]
        package var sessionVersion: UInt64
        /// The `a=sctp-port` of an offered data channel section (RFC 8841), nil without one.
        package var sctpPort: UInt16? = nil

        package func section(mid: String) -> RemoteSection? { sections.first { $0.mid == mid } }
    }

    // MARK: - Codecs and extensions

    /// Payload types this client offers.
    package static let opusPayloadType: UInt8 = 111
    package static let vp8PayloadType: UInt8 = 96
    /// H.264 as Chrome numbers it (any number works: the answer's is used).
    package static let h264PayloadType: UInt8 = 102
    /// VP9 profile 0 as Chrome numbers it.
    package static let vp9PayloadType: UInt8 = 98
    /// RED around Opus (RFC 2198), as Chrome numbers it.
    package static let redPayloadType: UInt8 = 63
    /// AV1 as the server numbers it (any number works: the answer's is used).
    package static let av1PayloadType: UInt8 = 45
    /// The Dependency Descriptor's id in the publish offer (one-byte form: its L1T1 values fit 16 bytes).
    package static let dependencyDescriptorID: UInt8 = 11

    /// The RTCP feedback this client uses for video: NACK, PLI, FIR (it answers them as a sender and sends them as a receiver).
    static let videoFeedback = [RTCPFeedback(type: "nack"), RTCPFeedback(type: "nack", parameter: "pli"),
                                RTCPFeedback(type: "ccm", parameter: "fir")]

    /// The RTCP feedback this client uses for Opus: NACK (it resends audio as a sender and asks for
    /// lost packets as a receiver while they can still be played, docs/network.md).
    static let audioFeedback = [RTCPFeedback(type: "nack")]

    /// The codecs offered for `kind`; for video VP8 and H.264, `preferred` first (the server forwards
    /// the first of the offer it takes, or of its `--video-codecs` list, docs/protocol.md), and VP9 or AV1 only when preferred: a
    /// publisher sends them when asked to, while a receiver always accepts them (`receiveCapabilities`).
    /// For audio Opus, then RED around it (`a=fmtp:63 111/111`, RFC 2198) unless `redundantAudio` is off.
    /// With `opusDTX` the Opus fmtp says `usedtx=1`, and without `opusInbandFEC` it leaves out
    /// `useinbandfec=1` (RFC 7587 §6.1; the server's answer keeps the offer's parameters).
    static func codecs(for kind: TrackKind, preferring preferred: VideoCodec = .vp8, redundantAudio: Bool = true,
                       opusDTX: Bool = false, opusInbandFEC: Bool = true) -> [Codec] {
        switch kind {
        case .audio:
            let opus = Codec(payloadType: opusPayloadType, name: "opus", clockRate: 48_000, channels: 2,
                             formatParameters: "minptime=10" + (opusInbandFEC ? ";useinbandfec=1" : "") + (opusDTX ? ";usedtx=1" : ""),
                             feedback: audioFeedback)
            return redundantAudio ? [opus, .red(payloadType: redPayloadType, opusPayloadType: opusPayloadType)] : [opus]
        case .video:
            let vp8 = Codec(payloadType: vp8PayloadType, name: "VP8", clockRate: 90_000, feedback: videoFeedback)
            // RFC 9628 §6: profile 0 (8-bit 4:2:0), the one libvpx's real-time path here encodes.
            let vp9 = Codec(payloadType: vp9PayloadType, name: "VP9", clockRate: 90_000, formatParameters: "profile-id=0",
                            feedback: videoFeedback)
            // av1-rtp-spec §7.2.1: Main profile (no `profile` means 0), the one libaom encodes here.
            let av1 = Codec(payloadType: av1PayloadType, name: "AV1", clockRate: 90_000, feedback: videoFeedback)
            // RFC 6184 §8.1: packetization-mode 1 (STAP-A, FU-A), Constrained Baseline level 3.1.
            var h264 = Codec.h264(payloadType: h264PayloadType)
            h264.feedback = videoFeedback
            switch preferred {
            case .vp8: return [vp8, h264]
            case .h264: return [h264, vp8]
            case .vp9: return [vp9, vp8, h264]
            case .av1: return [av1, vp8, h264]
            }
        }
    }

    /// The header extensions offered when publishing (Chrome's ids): the audio level for audio,
    /// `mid` for both, `rid` for video (simulcast layers are told apart by it), and when AV1 is
    /// preferred the Dependency Descriptor, which the SFU reads as it does a browser's.
    static func publishExtensions(for kind: TrackKind, videoCodec: VideoCodec = .vp8) -> [ExtMap] {
        switch kind {
        case .audio: return [ExtMap(id: 1, uri: RTPHeaderExtensionURI.audioLevel), ExtMap(id: 4, uri: RTPHeaderExtensionURI.mid)]
        case .video:
            var maps = [ExtMap(id: 4, uri: RTPHeaderExtensionURI.mid), ExtMap(id: 10, uri: RTPHeaderExtensionURI.rid)]
            if videoCodec == .av1 {
                maps.append(ExtMap(id: UInt16(dependencyDescriptorID), uri: RTPHeaderExtensionURI.dependencyDescriptor))
            }
            return maps
        }
    }

    /// What this client accepts on the subscribe transport: with transport-wide sequence numbers
    /// it sends transport-cc feedback, from which the server estimates its bandwidth.
    package static let receiveCapabilities = MediaCapabilities(
        audioCodecs: codecs(for: .audio).map(withTransportCC),
        videoCodecs: (codecs(for: .video) + codecs(for: .video, preferring: .vp9).prefix(1)
                      + codecs(for: .video, preferring: .av1).prefix(1) + h264MainAndHigh).map(withTransportCC),
        headerExtensions: [RTPHeaderExtensionURI.mid, RTPHeaderExtensionURI.audioLevel, RTPHeaderExtensionURI.transportWideCC])

    /// H.264 Main and High, which this client decodes (OpenH264) but never encodes: a
    /// passed-through RTMP ingress publishes them (docs/ingress.md).
    static let h264MainAndHigh = [H264ProfileLevelID.Profile.main, .high].map { profile in
        var codec = Codec.h264(payloadType: h264PayloadType, profile: profile)
        codec.feedback = videoFeedback
        return codec
    }

    /// `codec` with the `transport-cc` feedback this client sends as a receiver.
    static func withTransportCC(_ codec: Codec) -> Codec {
        var codec = codec
        codec.feedback.append(RTCPFeedback(type: "transport-cc"))
        return codec
    }

    // MARK: - Publish offer

    /// The publish transport's offer: one `sendonly` section per track (BUNDLE, rtcp-mux),
    /// `a=setup:actpass`, ICE credentials and the DTLS fingerprint; no candidates (the server is
    /// ICE-lite and learns this client's address from its checks).
    /// - Parameter extraExtensions: offered on every section after the usual ones (the load
    ///   tester's abs-capture-time).
    /// - Parameter videoCodec: the video codec offered first (both are offered).
    package static func publishOffer(sections: [PublishSection], ice: ICECredentials, fingerprint: DTLSFingerprint,
                                     sessionID: String, version: UInt64, cname: String, extraExtensions: [ExtMap] = [],
                                     videoCodec: VideoCodec = .vp8, redundantAudio: Bool = true, opusDTX: Bool = false,
                                     opusInbandFEC: Bool = true) -> String {
        let media = sections.map { s -> MediaDescription in
            let preferred = s.onlyCodec ?? videoCodec
            var offered = codecs(for: s.kind, preferring: preferred, redundantAudio: redundantAudio, opusDTX: opusDTX,
                                 opusInbandFEC: opusInbandFEC)
            if let only = s.onlyCodec { offered = offered.filter { VideoCodec(encodingName: $0.name) == only } }
            if let profile = s.h264ProfileLevelID.flatMap(H264ProfileLevelID.init), profile.profile != nil {
                for i in offered.indices where offered[i].name.lowercased() == "h264" {
                    offered[i].formatParameters = "level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=\(profile.description)"
                }
            }
            var m = MediaDescription(kind: s.kind == .audio ? .audio : .video, mid: s.mid, direction: s.active ? .sendonly : .inactive,
                                     codecs: offered,
                                     extensions: publishExtensions(for: s.kind, videoCodec: preferred) + extraExtensions)
            guard s.active else { return m }
            if s.rids.isEmpty, let ssrc = s.ssrcs.first {
                m.addSendStream(ssrc: ssrc, cname: cname, streamID: s.streamLabel, trackID: s.trackLabel)
            } else {
                m.msid = [MediaStreamID(streamID: s.streamLabel, trackID: s.trackLabel)]
                m.setSendSimulcast(rids: s.rids)
            }
            return m
        }
        let transport = TransportParameters(iceUfrag: ice.ufrag, icePwd: ice.pwd,
                                            fingerprint: Fingerprint(algorithm: fingerprint.algorithm, bytes: fingerprint.bytes),
                                            setup: .actpass, iceOptions: ["trickle"])
        var offer = SessionDescription.offer(sessionID: sessionID, transport: transport, media: media)
        offer.origin.sessionVersion = version
        // An AV1 key frame's Dependency Descriptor with a scalable structure exceeds the one-byte
        // form's 16 bytes: the two-byte form is announced (RFC 8285 §6).
        offer.extmapAllowMixed = videoCodec == .av1
        return offer.serialize()
    }

    // MARK: - Reading remote descriptions

    /// Reads an answer or offer from the server.
    /// - Throws: `SRTCError.mediaFailed` when it does not parse or lacks ICE credentials or a fingerprint.
    package static func describe(_ sdp: String) throws(SRTCError) -> RemoteDescription {
        let description: SessionDescription
        do {
            description = try SessionDescription(parsing: sdp)
        } catch {
            throw .mediaFailed("unreadable SDP: \(error)")
        }
        let first = description.media.first { !$0.isRejected } ?? description.media.first
        guard let section = first, let ufrag = description.iceUfrag(of: section), let pwd = description.icePwd(of: section),
              let fingerprint = description.fingerprints(of: section).first else {
            throw .mediaFailed("SDP without ICE credentials or DTLS fingerprint")
        }
        var candidates: [ICECandidate] = []
        for m in description.media {
            // UDP, and passive ICE-TCP candidates (RFC 6544) the transport reaches over TCP when UDP fails.
            for c in m.candidates where c.component == 1 {
                guard let candidate = ICECandidate(c) else { continue }
                if !candidates.contains(candidate) { candidates.append(candidate) }
            }
        }
        return RemoteDescription(
            iceUfrag: ufrag, icePwd: pwd, fingerprint: DTLSFingerprint(algorithm: fingerprint.algorithm, bytes: fingerprint.bytes),
            setup: description.setup(of: section), candidates: candidates, iceLite: description.iceLite,
            sections: description.media.compactMap(remoteSection), sessionVersion: description.origin.sessionVersion,
            sctpPort: description.media.first { $0.kind == .application && !$0.isRejected }.map { $0.sctpPort ?? SCTPAssociation.defaultPort })
    }

    private static func remoteSection(_ m: MediaDescription) -> RemoteSection? {
        guard let mid = m.mid else { return nil }
        let kind: TrackKind? = m.kind == .audio ? .audio : m.kind == .video ? .video : nil
        // Audio: Opus. Video: the first VP8, VP9 profile 0 (RFC 9628 §6: no profile-id means 0),
        // AV1 Main profile (av1-rtp-spec §7.2.1: no profile means 0), or H.264 this client decodes
        // (packetization-mode 1, Constrained Baseline, Main or High, RFC 6184 §8.1), in the section's order.
        let codec = m.codecs.first { c in
            kind == .audio ? c.name.lowercased() == "opus"
                : c.name.lowercased() == "vp8" || c.h264Mode1Profile != nil
                    || (c.name.lowercased() == "vp9" && (c.parameter("profile-id") ?? "0") == "0")
                    || (c.name.lowercased() == "av1" && (c.parameter("profile") ?? "0") == "0")
        }
        func id(_ uri: String) -> UInt8? { m.extensionID(uri: uri).flatMap { $0 <= 255 ? UInt8($0) : nil } }
        let msid = m.msid.first ?? m.ssrcs.first { $0.name == "msid" }.flatMap { attribute -> MediaStreamID? in
            guard let parts = attribute.value?.split(separator: " "), let stream = parts.first else { return nil }
            return MediaStreamID(streamID: String(stream), trackID: parts.count > 1 ? String(parts[1]) : nil)
        }
        let red = kind == .audio ? m.codecs.first(where: { c in
            c.isRED && codec != nil && c.redundantPayloadTypes?.allSatisfy { $0 == codec!.payloadType } == true
        }) : nil
        return RemoteSection(mid: mid, kind: kind, direction: m.effectiveDirection, rejected: m.isRejected,
                             payloadType: codec?.payloadType, redPayloadType: red?.payloadType,
                             usesDTX: kind == .audio && codec?.parameter("usedtx") == "1",
                             usesInbandFEC: kind == .audio && codec?.parameter("useinbandfec") == "1", videoCodec: kind == .video ? codec.flatMap { VideoCodec(encodingName: $0.name) } : nil,
                             midID: id(RTPHeaderExtensionURI.mid),
                             ridID: id(RTPHeaderExtensionURI.rid), audioLevelID: id(RTPHeaderExtensionURI.audioLevel),
                             transportCCID: id(RTPHeaderExtensionURI.transportWideCC),
                             dependencyDescriptorID: id(RTPHeaderExtensionURI.dependencyDescriptor),
                             nack: codec?.feedback.contains(RTCPFeedback(type: "nack")) ?? false,
                             ssrcs: m.ssrcList, trackID: msid?.trackID, streamID: msid?.streamID)
    }

    // MARK: - Subscribe answer

    /// The answer to a `subscriber_offer`: Opus, VP8, VP9, AV1 and H.264 (NACK, PLI, FIR) only, `recvonly` where
    /// the server sends, `a=setup:active` (this client is the DTLS client) unless the offer
    /// insists on being active itself.
    /// With `dataChannels` the offer's application section is accepted (docs/protocol.md, "Data channels").
    /// - Parameter capabilities: what to accept (the SDK's own by default).
    package static func subscribeAnswer(to sdp: String, ice: ICECredentials, fingerprint: DTLSFingerprint, sessionID: String,
                                        dataChannels: Bool = false, redundantAudio: Bool = true,
                                        capabilities: MediaCapabilities = receiveCapabilities) throws(SRTCError) -> String {
        var capabilities = capabilities
        if !redundantAudio { capabilities.audioCodecs.removeAll(where: \.isRED) }
        let offer: SessionDescription
        do {
            offer = try SessionDescription(parsing: sdp)
        } catch {
            throw .mediaFailed("unreadable subscriber offer: \(error)")
        }
        let offeredSetup = offer.media.first.flatMap { offer.setup(of: $0) }
        let transport = TransportParameters(iceUfrag: ice.ufrag, icePwd: ice.pwd,
                                            fingerprint: Fingerprint(algorithm: fingerprint.algorithm, bytes: fingerprint.bytes),
                                            setup: offeredSetup == .active ? .passive : .active)
        let options = AnswerOptions(transport: transport, capabilities: capabilities, sessionID: sessionID,
                                    acceptDataChannel: dataChannels)
        return offer.answer(options).serialize()
    }

    /// The DTLS role this client takes given the remote side's `a=setup` (RFC 5763 §5).
    package static func localDTLSRole(remoteSetup: SetupRole?) -> DTLSEndpoint.Role {
        remoteSetup == .active ? .server : .client
    }
}
