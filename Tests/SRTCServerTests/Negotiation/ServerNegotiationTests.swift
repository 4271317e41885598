import Testing
import RTCTransport
import RTCWire
import SFU
import SRTCProtocol
@testable import SRTCServer

/// `ServerNegotiation` by tables of descriptions: browser-shaped SDP in, the SFU's parameters
/// and the server's SDP out, with no transport or SFU behind it.
struct ServerNegotiationTests {
    static let serverICE = ICECredentials(ufrag: "srv1", pwd: "serverpassword0123456789")
    static let subscribeICE = ICECredentials(ufrag: "srv2", pwd: "serverpassword9876543210")
    static let clientICE = ICECredentials(ufrag: "Hk3v", pwd: "rJyKpWvz8mOqk5P3tGh0YbN2")
    static let layers = [SimulcastLayer(rid: "f", desc: "camera_big", maxBitrate: 1_200_000),
                         SimulcastLayer(rid: "q", desc: "camera_small", maxBitrate: 150_000)]

    static func negotiation(videoCodecs: VideoCodecPreference = .offerOrder) -> ServerNegotiation {
        let candidate = Candidate(foundation: "1", component: 1, transport: "udp", priority: 2_130_706_431,
                                  address: "127.0.0.1", port: 7881, kind: .host)
        return ServerNegotiation(fingerprint: Fingerprint(bytes: Array(repeating: 0xAB, count: 32)), candidates: [candidate],
                                 sessionID: "424242", publishICE: serverICE, subscribeICE: subscribeICE,
                                 videoCodecs: videoCodecs)
    }

    static func parse(_ text: String) throws -> SessionDescription { try SessionDescription(parsing: text) }

    // MARK: - Publish: answers and producers

    struct PublishCase: CustomTestStringConvertible, Sendable {
        var name: String
        var offer: String
        var tracks: [PublishTrack]
        /// Per answered mid: direction and codec names (empty: rejected).
        var sections: [String: (Direction?, [String])]
        /// Per track mid: the producer's encodings (rid/layer or SSRC).
        var encodings: [String: [RTPEncodingParameters]]
        var testDescription: String { name }
    }

    static let publishCases: [PublishCase] = [
        PublishCase(
            name: "audio and simulcast camera: RED (first) and Opus, VP8 only, layers in the request's order",
            offer: ClientSDP.offer([.audio(mid: "0"), .simulcast(mid: "1", rids: ["q", "h", "f"])]),
            tracks: [PublishTrack(mid: "0", kind: .audio, desc: "mic"), PublishTrack(mid: "1", kind: .video, desc: "camera", layers: layers)],
            sections: ["0": (.recvonly, ["red", "opus"]), "1": (.recvonly, ["VP8"])],
            encodings: ["0": [RTPEncodingParameters(ssrc: 1111)],
                        "1": [RTPEncodingParameters(rid: "f", layer: "camera_big", maxBitrate: 1_200_000),
                              RTPEncodingParameters(rid: "q", layer: "camera_small", maxBitrate: 150_000)]]),
        PublishCase(
            name: "end-to-end encrypted audio is answered without RED (a browser encrypts the whole RED payload)",
            offer: ClientSDP.offer([.audio(mid: "0"), .video(mid: "1")]),
            tracks: [PublishTrack(mid: "0", kind: .audio, desc: "mic", e2ee: true), PublishTrack(mid: "1", kind: .video, desc: "camera", e2ee: true)],
            sections: ["0": (.recvonly, ["opus"]), "1": (.recvonly, ["VP8"])],
            encodings: ["0": [RTPEncodingParameters(ssrc: 1111)], "1": [RTPEncodingParameters(ssrc: 2222)]]),
        PublishCase(
            name: "simulcast without layer descriptions keeps the offer's rid order",
            offer: ClientSDP.offer([.simulcast(mid: "0", rids: ["h", "l"])]),
            tracks: [PublishTrack(mid: "0", kind: .video, desc: "camera")],
            sections: ["0": (.recvonly, ["VP8"])],
            encodings: ["0": [RTPEncodingParameters(rid: "h", layer: "h"), RTPEncodingParameters(rid: "l", layer: "l")]]),
        PublishCase(
            name: "one stream with RTX: the FID group's first SSRC is the media SSRC, RTX is not answered",
            offer: ClientSDP.offer([.video(mid: "3", ssrc: 5555, rtx: 6666)]),
            tracks: [PublishTrack(mid: "3", kind: .video, desc: "screen")],
            sections: ["3": (.recvonly, ["VP8"])],
            encodings: ["3": [RTPEncodingParameters(ssrc: 5555)]]),
        PublishCase(
            name: "a section the client stopped sending on is answered inactive",
            offer: ClientSDP.offer([.audio(mid: "0", direction: "inactive"), .video(mid: "1")]),
            tracks: [PublishTrack(mid: "1", kind: .video, desc: "camera")],
            sections: ["0": (.inactive, ["red", "opus"]), "1": (.recvonly, ["VP8"])],
            encodings: ["1": [RTPEncodingParameters(ssrc: 2222)]]),
        PublishCase(
            name: "a section without a forwardable codec is rejected when no track asks for it",
            offer: ClientSDP.offer([.audio(mid: "0"), .h264Only(mid: "1")]),
            tracks: [PublishTrack(mid: "0", kind: .audio, desc: "mic")],
            sections: ["0": (.recvonly, ["red", "opus"]), "1": (.inactive, [])],
            encodings: ["0": [RTPEncodingParameters(ssrc: 1111)]]),
        PublishCase(
            name: "VP9 offered first: profile 0 is answered, profile 2 is not (one video codec)",
            offer: ClientSDP.offer([.vp9First(mid: "0")]),
            tracks: [PublishTrack(mid: "0", kind: .video, desc: "camera")],
            sections: ["0": (.recvonly, ["VP9"])],
            encodings: ["0": [RTPEncodingParameters(ssrc: 4444)]]),
        PublishCase(
            name: "AV1 offered first: profile 0 is answered with the Dependency Descriptor, profile 1 is not",
            offer: ClientSDP.offer([.av1First(mid: "0")]),
            tracks: [PublishTrack(mid: "0", kind: .video, desc: "camera")],
            sections: ["0": (.recvonly, ["AV1"])],
            encodings: ["0": [RTPEncodingParameters(ssrc: 5555)]]),
    ]

    @Test(arguments: publishCases)
    func publishOffersAreAnsweredWithTheCodecsTheSFUForwards(_ c: PublishCase) throws {
        var n = Self.negotiation()
        let ids = Dictionary(uniqueKeysWithValues: c.tracks.map { ($0.mid, "TR_" + $0.mid) })
        let plan = try n.answerPublish(offer: c.offer, tracks: c.tracks, trackIds: ids, transportExists: false)
        let answer = try Self.parse(plan.sdp)
        #expect(answer.media.count == c.sections.count)
        for section in answer.media {
            let mid = try #require(section.mid)
            let expected = try #require(c.sections[mid])
            #expect(section.isRejected == expected.1.isEmpty, "mid \(mid)")
            if !section.isRejected {
                #expect(section.direction == expected.0, "mid \(mid)")
                #expect(section.codecs.map(\.name) == expected.1, "mid \(mid)")
                #expect(section.setup == .passive && section.iceUfrag == Self.serverICE.ufrag)
            }
        }
        #expect(answer.bundleMids == answer.media.filter { !$0.isRejected }.compactMap(\.mid))
        #expect(answer.iceLite)
        #expect(plan.producers.map(\.trackId) == c.tracks.map { "TR_" + $0.mid })
        for producer in plan.producers {
            let mid = try #require(producer.parameters.mid)
            #expect(producer.parameters.encodings == c.encodings[mid], "mid \(mid)")
            #expect(producer.parameters.codecs.allSatisfy {
                $0.name == "opus" || $0.name == "red" || $0.name == "VP8" || $0.fmtp["profile-id"] == "0" || $0.fmtp["profile"] == "0"
            })
            if producer.parameters.codecs.first?.name == "AV1" {
                #expect(producer.parameters.headerExtensions.contains(RTPHeaderExtensionParameters(
                    uri: RTPHeaderExtensionURI.dependencyDescriptor, id: 13)))
            }
        }
        #expect(plan.transport == ServerNegotiation.RemoteTransport(
            ice: Self.clientICE, fingerprint: try DTLSFingerprint(sdpValue: ClientSDP.fingerprint), dtlsRole: .server))
    }

    struct RefusedCase: CustomTestStringConvertible, Sendable {
        var name: String
        var offer: String
        var tracks: [PublishTrack]
        var error: SignalError
        var testDescription: String { name }
    }

    static let refusedCases: [RefusedCase] = [
        RefusedCase(name: "a track whose mid is not in the offer",
                    offer: ClientSDP.offer([.audio(mid: "0")]), tracks: [PublishTrack(mid: "5", kind: .audio, desc: "mic")],
                    error: SignalError(.invalidParameter, "offer has no active m-section with mid 5")),
        RefusedCase(name: "a track of the wrong kind",
                    offer: ClientSDP.offer([.audio(mid: "0")]), tracks: [PublishTrack(mid: "0", kind: .video, desc: "camera")],
                    error: SignalError(.invalidParameter, "m-section 0 is not video")),
        RefusedCase(name: "a track with no codec the SFU forwards",
                    offer: ClientSDP.offer([.h264Only(mid: "0")]), tracks: [PublishTrack(mid: "0", kind: .video, desc: "camera")],
                    error: SignalError(.invalidParameter, "m-section 0 offers no codec the server forwards (Opus, VP8, VP9 profile 0, AV1 profile 0, H.264 packetization-mode 1 Constrained Baseline)")),
        RefusedCase(name: "no fingerprint",
                    offer: ClientSDP.offer([.audio(mid: "0")], fingerprint: nil), tracks: [PublishTrack(mid: "0", kind: .audio, desc: "mic")],
                    error: SignalError(.invalidParameter, "SDP lacks a sha-256 a=fingerprint")),
        RefusedCase(name: "a fingerprint of another hash",
                    offer: ClientSDP.offer([.audio(mid: "0")], fingerprint: "sha-1 4F:7E:AE:63:22:9A:83:1F:9D:28:6B:F5:D7:04:C8:E5:71:49:A9:BA"),
                    tracks: [PublishTrack(mid: "0", kind: .audio, desc: "mic")],
                    error: SignalError(.invalidParameter, "SDP lacks a sha-256 a=fingerprint")),
    ]

    @Test(arguments: refusedCases)
    func badPublishOffersAreRefusedWithTheReason(_ c: RefusedCase) {
        var n = Self.negotiation()
        #expect(throws: c.error) {
            try n.answerPublish(offer: c.offer, tracks: c.tracks, trackIds: ["0": "TR_0", "5": "TR_5"], transportExists: false)
        }
    }

    @Test func textThatIsNotSDPIsRefused() {
        var n = Self.negotiation()
        #expect {
            try n.answerPublish(offer: "hello", tracks: [], trackIds: [:], transportExists: false)
        } throws: { ($0 as? SignalError)?.errorCode == .invalidParameter && ($0 as? SignalError)?.message.hasPrefix("offer is not valid SDP") == true }
    }

    @Test(arguments: [("actpass", SetupRole.passive, DTLSEndpoint.Role.server), ("active", .passive, .server), ("passive", .active, .client)])
    func theServerTakesTheDTLSRoleTheOfferLeavesIt(_ offered: String, _ answered: SetupRole, _ role: DTLSEndpoint.Role) throws {
        var n = Self.negotiation()
        let plan = try n.answerPublish(offer: ClientSDP.offer([.audio(mid: "0")], setup: offered),
                                       tracks: [PublishTrack(mid: "0", kind: .audio, desc: "mic")], trackIds: ["0": "TR_0"], transportExists: false)
        #expect(try Self.parse(plan.sdp).media[0].setup == answered)
        #expect(plan.transport?.dtlsRole == role)
    }

    /// Opus DTX (RFC 7587 §6.1): `usedtx=1` offered is kept in the answer (the server as receiver
    /// prefers it: Chromium and the Swift SDK then stop sending during silence); not offered, not added.
    @Test(arguments: [true, false])
    func opusDTXIsAnsweredWhereOffered(_ offered: Bool) throws {
        var n = Self.negotiation()
        var offer = ClientSDP.offer([.audio(mid: "0")])
        if offered { offer = offer.replacing("a=fmtp:111 minptime=10;useinbandfec=1", with: "a=fmtp:111 minptime=10;useinbandfec=1;usedtx=1") }
        let plan = try n.answerPublish(offer: offer, tracks: [PublishTrack(mid: "0", kind: .audio, desc: "mic")], trackIds: ["0": "TR_0"],
                                       transportExists: false)
        let opus = try #require(try Self.parse(plan.sdp).media[0].codecs.first { $0.name == "opus" })
        #expect(opus.parameter("usedtx") == (offered ? "1" : nil))
        #expect(opus.parameter("useinbandfec") == "1")
    }

    // MARK: - Publish: renegotiation and ICE restart

    @Test func laterOffersKeepTheTransportAndMustKeepTheClientsCredentials() throws {
        var n = Self.negotiation()
        let audio = PublishTrack(mid: "0", kind: .audio, desc: "mic")
        let first = try n.answerPublish(offer: ClientSDP.offer([.audio(mid: "0")]), tracks: [audio], trackIds: ["0": "TR_0"], transportExists: false)
        #expect(first.transport != nil)
        let video = PublishTrack(mid: "1", kind: .video, desc: "camera")
        let second = try n.answerPublish(offer: ClientSDP.offer([.audio(mid: "0"), .video(mid: "1")]), tracks: [video],
                                         trackIds: ["1": "TR_1"], transportExists: true)
        #expect(second.transport == nil && second.producers.map(\.trackId) == ["TR_1"])
        // The same session id on every answer, and a version that counts up (RFC 3264 §8).
        let (o1, o2) = (try Self.parse(first.sdp).origin, try Self.parse(second.sdp).origin)
        #expect(o1.sessionID == "424242" && o2.sessionID == "424242" && o2.sessionVersion == o1.sessionVersion + 1)
        #expect(throws: SignalError(.invalidParameter, "the offer changes ICE credentials: send it with restart_ice")) {
            try n.answerPublish(offer: ClientSDP.offer([.audio(mid: "0"), .video(mid: "1")], ufrag: "new1"), tracks: [], trackIds: [:], transportExists: true)
        }
        let renegotiation = try n.answerPublishRenegotiation(offer: ClientSDP.offer([.audio(mid: "0"), .video(mid: "1", direction: "inactive")]))
        let renegotiated = try Self.parse(renegotiation)
        #expect(renegotiated.media.map(\.direction) == [.recvonly, .inactive])
    }

    @Test func anICERestartNeedsNewClientCredentialsAndAnswersWithNewServerOnes() throws {
        var n = Self.negotiation()
        let audio = PublishTrack(mid: "0", kind: .audio, desc: "mic")
        _ = try n.answerPublish(offer: ClientSDP.offer([.audio(mid: "0")]), tracks: [audio], trackIds: ["0": "TR_0"], transportExists: false)
        let fresh = ICECredentials(ufrag: "srv3", pwd: "serverpassword5555555555")
        #expect(throws: SignalError(.invalidParameter, "an ICE restart offer needs new ice-ufrag and ice-pwd")) {
            try n.answerPublishRestart(offer: ClientSDP.offer([.audio(mid: "0")]), newICE: fresh)
        }
        #expect(n.publishICE == Self.serverICE)
        let (sdp, remote) = try n.answerPublishRestart(offer: ClientSDP.offer([.audio(mid: "0")], ufrag: "Zz9q", pwd: "anotherclientpassword000"), newICE: fresh)
        #expect(remote == ICECredentials(ufrag: "Zz9q", pwd: "anotherclientpassword000"))
        #expect(try Self.parse(sdp).media[0].iceUfrag == "srv3" && n.publishICE == fresh)
    }

    // MARK: - Subscribe: offers

    /// The client's answer to a server offer, as a browser would make it (its own credentials, `setup`).
    static func clientAnswer(_ offer: String, ufrag: String = "Hk3v", pwd: String = "rJyKpWvz8mOqk5P3tGh0YbN2",
                             setup: SetupRole = .active, rejecting rejected: Set<String> = [],
                             capabilities: MediaCapabilities = .webRTC) throws -> String {
        var answer = try parse(offer).answer(AnswerOptions(
            transport: TransportParameters(iceUfrag: ufrag, icePwd: pwd, fingerprint: try Fingerprint(parsing: ClientSDP.fingerprint), setup: setup),
            capabilities: capabilities, sessionID: "77", direction: { _ in .recvonly }))
        for i in answer.media.indices where rejected.contains(answer.media[i].mid ?? "") { answer.media[i].port = 0 }
        return answer.serialize()
    }

    @Test func eachSubscriptionGetsASectionAndFreedSectionsAreReused() throws {
        var n = Self.negotiation()
        let first = n.subscribe(trackId: "TR_a", publisherUid: "alice", kind: .audio, layer: nil, ssrc: 101)
        let second = n.subscribe(trackId: "TR_v", publisherUid: "alice", kind: .video, layer: "camera_small", ssrc: 202)
        #expect((first.revision, second.revision) == (1, 2))
        let offer = try Self.parse(second.sdp)
        #expect(offer.media.map(\.mid) == ["0", "1"] && offer.media.map(\.direction) == [.sendonly, .sendonly])
        #expect(offer.media.map { $0.codecs.map(\.name) } == [["opus", "red"], ["VP8", "rtx"]])
        #expect(offer.media[1].ssrcs.contains(SSRCAttribute(ssrc: 202, name: "cname", value: "alice")))
        #expect(offer.media.allSatisfy { $0.setup == .actpass && $0.iceUfrag == Self.subscribeICE.ufrag })
        let firstVersion = try Self.parse(first.sdp).origin.sessionVersion
        #expect(offer.origin.sessionID == "424242" && offer.origin.sessionVersion == firstVersion + 1)

        let unsubscribed = n.unsubscribe(trackId: "TR_a")
        let freed = try #require(unsubscribed)
        #expect(!freed.wasConsuming && freed.offer.revision == 3)
        #expect(try Self.parse(freed.offer.sdp).media.map(\.direction) == [.inactive, .sendonly])
        let twice = n.unsubscribe(trackId: "TR_a")
        #expect(twice == nil)

        // A video subscription takes a new section; an audio one takes back the free audio section.
        _ = n.subscribe(trackId: "TR_v2", publisherUid: "bob", kind: .video, layer: nil, ssrc: 303)
        let reused = n.subscribe(trackId: "TR_a2", publisherUid: "bob", kind: .audio, layer: nil, ssrc: 404)
        let sections = try Self.parse(reused.sdp).media
        #expect(sections.map(\.mid) == ["0", "1", "2"])
        #expect(sections[0].ssrcs.contains(SSRCAttribute(ssrc: 404, name: "cname", value: "bob")) && sections[2].kind == .video)
    }

    @Test func dataChannelsComeFirstInEveryOfferAndTheirAnswerStartsNoConsumer() throws {
        var n = Self.negotiation()
        let made = n.offerDataChannels()
        let again = n.offerDataChannels()
        let data = try #require(made)
        #expect(again == nil)  // once
        let first = try Self.parse(data.sdp)
        #expect(data.revision == 1 && first.media.map(\.kind) == [.application] && first.media[0].mid == "data")
        #expect(first.media[0].sctpPort == 5000 && first.media[0].maxMessageSize == 262_144 && first.bundleMids == ["data"])
        let plan = try n.applySubscriberAnswer(try Self.clientAnswer(data.sdp), revision: 1, transportExists: true)
        #expect(plan.complete?.ice == Self.clientICE && plan.consumers.isEmpty)

        let audio = n.subscribe(trackId: "TR_a", publisherUid: "alice", kind: .audio, layer: nil, ssrc: 101)
        let offer = try Self.parse(audio.sdp)
        #expect(offer.media.map(\.mid) == ["data", "0"] && offer.media.map(\.kind) == [.application, .audio])
        let started = try n.applySubscriberAnswer(try Self.clientAnswer(audio.sdp), revision: 2, transportExists: true)
        #expect(started.consumers.map(\.trackId) == ["TR_a"] && started.complete == nil)
    }

    /// Audio is offered with RED around Opus, except for an end-to-end encrypted track: RED
    /// added by the SFU would not decrypt in a browser (docs/network.md, "RED added by the SFU").
    @Test func encryptedAudioIsOfferedToSubscribersWithoutRED() throws {
        var n = Self.negotiation()
        let plain = try Self.parse(n.subscribe(trackId: "TR_a", publisherUid: "alice", kind: .audio, layer: nil, ssrc: 101).sdp)
        #expect(plain.media[0].codecs.map(\.name) == ["opus", "red"])
        let encrypted = try Self.parse(n.subscribe(trackId: "TR_b", publisherUid: "bob", kind: .audio, layer: nil, ssrc: 102,
                                                   e2ee: true).sdp)
        #expect(encrypted.media.map { $0.codecs.map(\.name) } == [["opus", "red"], ["opus"]])
    }

    // MARK: - Subscribe: answers

    @Test func anAnswerStartsTheSubscriptionsItsOfferCarried() throws {
        var n = Self.negotiation()
        _ = n.subscribe(trackId: "TR_a", publisherUid: "alice", kind: .audio, layer: nil, ssrc: 101)
        let offer = n.subscribe(trackId: "TR_v", publisherUid: "alice", kind: .video, layer: "camera_small", ssrc: 202)
        #expect(throws: SignalError(.wrongState, "answer is for offer 1; the current offer is 2")) {
            try n.applySubscriberAnswer(try Self.clientAnswer(offer.sdp), revision: 1, transportExists: false)
        }
        let plan = try n.applySubscriberAnswer(try Self.clientAnswer(offer.sdp), revision: 2, transportExists: false)
        #expect(plan.transport?.ice == Self.clientICE && plan.transport?.dtlsRole == .server && plan.restartICE == nil)
        #expect(plan.consumers.map(\.trackId) == ["TR_a", "TR_v"] && plan.consumers.map(\.layer) == [nil, "camera_small"])
        #expect(plan.consumers.map { $0.parameters.encodings } == [[RTPEncodingParameters(ssrc: 101)], [RTPEncodingParameters(ssrc: 202)]])
        #expect(plan.consumers.map { $0.parameters.codecs.map(\.name) } == [["opus"], ["VP8"]])
        #expect(plan.consumers[0].parameters.cname == "alice")

        // Started consumers are not started again; a rejected section starts nothing.
        n.consumerStarted(trackId: "TR_a")
        n.consumerStarted(trackId: "TR_v")
        #expect(n.consumingTrackIds == ["TR_a", "TR_v"])
        let third = n.subscribe(trackId: "TR_s", publisherUid: "bob", kind: .video, layer: nil, ssrc: 303)
        let again = try n.applySubscriberAnswer(try Self.clientAnswer(third.sdp, rejecting: ["2"]), revision: 3, transportExists: true)
        #expect(again.transport == nil && again.consumers.isEmpty)
    }

    @Test func audioIsOfferedOpusThenREDAndAnAnswerThatKeepsREDGetsARedConsumer() throws {
        var n = Self.negotiation()
        let offer = n.subscribe(trackId: "TR_a", publisherUid: "alice", kind: .audio, layer: nil, ssrc: 101)
        let section = try #require(try Self.parse(offer.sdp).media.first)
        #expect(section.codecs.map(\.name) == ["opus", "red"] && section.formats == ["111", "63"])
        #expect(section.codecs[1].formatParameters == "111/111")
        #expect(offer.sdp.contains("a=rtpmap:63 red/48000/2\r\na=fmtp:63 111/111\r\n"))

        // A subscriber that keeps RED (as Chromium and the Swift SDK do).
        let withRED = MediaCapabilities(audioCodecs: [.opus(), .red()], videoCodecs: [.vp8()], headerExtensions: [])
        let plan = try n.applySubscriberAnswer(try Self.clientAnswer(offer.sdp, capabilities: withRED), revision: 1, transportExists: false)
        let codecs = try #require(plan.consumers.first).parameters.codecs
        #expect(codecs.map(\.name) == ["opus", "red"] && codecs.map(\.payloadType) == [111, 63])
        #expect(try #require(plan.consumers.first).parameters.redPayloadType == 63)

        // One that does not: plain Opus.
        var m = Self.negotiation()
        let plain = m.subscribe(trackId: "TR_a", publisherUid: "alice", kind: .audio, layer: nil, ssrc: 101)
        let plainPlan = try m.applySubscriberAnswer(try Self.clientAnswer(plain.sdp), revision: 1, transportExists: false)
        #expect(try #require(plainPlan.consumers.first).parameters.codecs.map(\.name) == ["opus"])
        #expect(try #require(plainPlan.consumers.first).parameters.redPayloadType == nil)
    }

    @Test func aPublisherOfferingREDGetsItFirstInTheAnswerAndTheProducerKnowsBoth() throws {
        var n = Self.negotiation()
        let plan = try n.answerPublish(offer: ClientSDP.offer([.audio(mid: "0")]), tracks: [PublishTrack(mid: "0", kind: .audio, desc: "mic")],
                                       trackIds: ["0": "TR_0"], transportExists: false)
        #expect(plan.sdp.contains("m=audio 7881 UDP/TLS/RTP/SAVPF 63 111\r\n"))
        #expect(plan.sdp.contains("a=fmtp:63 111/111"))
        let parameters = try #require(plan.producers.first).parameters
        #expect(parameters.redPayloadType == 63 && parameters.codecs.first { !$0.isRED }?.name == "opus")
    }

    /// RTX (RFC 4588) toward subscribers: offered with every video codec (`apt`, the next payload
    /// type) and, for a subscription, its RTX SSRC paired by `a=ssrc-group:FID` (RFC 5576 §4.2);
    /// the consumer gets it when the answer keeps `rtx` for the codec and transport-cc.
    @Test func videoIsOfferedRTXWithAnFIDGroupAndAnAnswerThatKeepsItGetsAnRTXConsumer() throws {
        var n = Self.negotiation()
        let offer = n.subscribe(trackId: "TR_v", publisherUid: "alice", kind: .video, layer: nil, ssrc: 202, rtxSSRC: 203)
        let section = try #require(try Self.parse(offer.sdp).media.first)
        #expect(section.codecs.map(\.name) == ["VP8", "rtx"] && section.formats == ["96", "97"])
        #expect(offer.sdp.contains("a=rtpmap:97 rtx/90000\r\na=fmtp:97 apt=96\r\n"))
        #expect(offer.sdp.contains("a=ssrc-group:FID 202 203\r\n"))
        #expect(section.rtxSSRC(for: 202) == 203 && section.ssrcs.contains(SSRCAttribute(ssrc: 203, name: "cname", value: "alice")))

        // Chromium keeps rtx (with transport-cc): the consumer sends its resends on 203.
        let plan = try n.applySubscriberAnswer(try Self.clientAnswer(offer.sdp), revision: 1, transportExists: false)
        let parameters = try #require(plan.consumers.first).parameters
        #expect(parameters.codecs.map(\.name) == ["VP8", "rtx"] && parameters.rtxPayloadType(for: 96) == 97)
        #expect(parameters.encodings == [RTPEncodingParameters(ssrc: 202, rtxSSRC: 203)])

        // The Swift SDK (no rtx in its receive capabilities) and a REMB-only receiver (aiortc)
        // stay on resends with the media SSRC.
        let noRTX = MediaCapabilities(audioCodecs: [.opus()], videoCodecs: [.vp8()], headerExtensions: [])
        var rembOnlyVP8 = Codec.vp8()
        rembOnlyVP8.feedback.removeAll { $0.type == "transport-cc" }
        let rembOnly = MediaCapabilities(audioCodecs: [.opus()], videoCodecs: [rembOnlyVP8, .rtx()], headerExtensions: [])
        for capabilities in [noRTX, rembOnly] {
            var m = Self.negotiation()
            let other = m.subscribe(trackId: "TR_v", publisherUid: "alice", kind: .video, layer: nil, ssrc: 202, rtxSSRC: 203)
            let otherPlan = try m.applySubscriberAnswer(try Self.clientAnswer(other.sdp, capabilities: capabilities), revision: 1, transportExists: false)
            let kept = try #require(otherPlan.consumers.first).parameters
            #expect(kept.codecs.map(\.name) == ["VP8"] && kept.encodings == [RTPEncodingParameters(ssrc: 202)])
        }

        // Audio has no RTX, even when given an RTX SSRC.
        let audio = n.subscribe(trackId: "TR_a", publisherUid: "alice", kind: .audio, layer: nil, ssrc: 301, rtxSSRC: 302)
        let audioSection = try #require(try Self.parse(audio.sdp).media.first { $0.kind == .audio })
        #expect(!audioSection.codecs.contains(where: \.isRTX) && audioSection.ssrcGroups.isEmpty)
    }

    @Test func anAV1SubscriptionIsOfferedAV1WithTheDependencyDescriptorAndTwoByteExtensions() throws {
        var n = Self.negotiation()
        let offer = n.subscribe(trackId: "TR_v", publisherUid: "alice", kind: .video, layer: "camera_small", ssrc: 202, codec: "AV1")
        let parsed = try Self.parse(offer.sdp)
        #expect(parsed.extmapAllowMixed)
        #expect(parsed.media[0].codecs.map(\.name) == ["AV1", "rtx"] && parsed.media[0].codecs[1].associatedPayloadType == 45)
        #expect(parsed.media[0].extensions.contains(ExtMap(id: 6, uri: RTPHeaderExtensionURI.dependencyDescriptor)))
        // Chromium's answer: AV1 and the descriptor.
        let chromium = MediaCapabilities(audioCodecs: [.opus()], videoCodecs: [.vp8(), Codec(payloadType: 45, name: "AV1", clockRate: 90_000)],
                                         headerExtensions: [RTPHeaderExtensionURI.mid, RTPHeaderExtensionURI.dependencyDescriptor])
        let plan = try n.applySubscriberAnswer(try Self.clientAnswer(offer.sdp, capabilities: chromium), revision: 1, transportExists: false)
        #expect(plan.consumers.map { $0.parameters.codecs.map(\.name) } == [["AV1"]])
        #expect(plan.consumers[0].parameters.headerExtensions.contains { $0.uri == RTPHeaderExtensionURI.dependencyDescriptor && $0.id == 6 })

        // A VP8 subscription's section has no Dependency Descriptor.
        let vp8 = n.subscribe(trackId: "TR_w", publisherUid: "bob", kind: .video, layer: nil, ssrc: 303)
        #expect(try Self.parse(vp8.sdp).media[1].extensions.allSatisfy { $0.uri != RTPHeaderExtensionURI.dependencyDescriptor })
    }

    @Test func aPassiveAnswerMakesTheServerTheDTLSClient() throws {
        var n = Self.negotiation()
        let offer = n.subscribe(trackId: "TR_a", publisherUid: "alice", kind: .audio, layer: nil, ssrc: 101)
        let plan = try n.applySubscriberAnswer(try Self.clientAnswer(offer.sdp, setup: .passive), revision: 1, transportExists: false)
        #expect(plan.transport?.dtlsRole == .client)
    }

    @Test func aSubscribeICERestartIsCompletedByTheAnswersNewCredentials() throws {
        var n = Self.negotiation()
        let offer = n.subscribe(trackId: "TR_a", publisherUid: "alice", kind: .audio, layer: nil, ssrc: 101)
        _ = try n.applySubscriberAnswer(try Self.clientAnswer(offer.sdp), revision: 1, transportExists: false)
        n.consumerStarted(trackId: "TR_a")
        let fresh = ICECredentials(ufrag: "srv9", pwd: "serverpassword9999999999")
        let restart = n.restartSubscribeICE(newICE: fresh)
        let restartUfrag = try Self.parse(restart.sdp).media[0].iceUfrag
        #expect(restart.revision == 2 && restartUfrag == "srv9")
        let plan = try n.applySubscriberAnswer(try Self.clientAnswer(restart.sdp, ufrag: "Nw12", pwd: "newclientpassword0000000"),
                                               revision: 2, transportExists: true)
        #expect(plan.restartICE == ICECredentials(ufrag: "Nw12", pwd: "newclientpassword0000000"))
        #expect(plan.transport == nil && plan.consumers.isEmpty && n.subscribeICE == fresh)
    }

    @Test func aLayerChangeGoesToTheSFUOnlyOnceTheConsumerRuns() throws {
        var n = Self.negotiation()
        #expect(throws: SignalError(.notFound, "not subscribed to TR_v")) { try n.setLayer(trackId: "TR_v", layer: "camera_big") }
        let offer = n.subscribe(trackId: "TR_v", publisherUid: "alice", kind: .video, layer: "camera_small", ssrc: 202)
        let early = try n.setLayer(trackId: "TR_v", layer: "camera_big")
        #expect(early == false)
        let plan = try n.applySubscriberAnswer(try Self.clientAnswer(offer.sdp), revision: 1, transportExists: false)
        #expect(plan.consumers.map(\.layer) == ["camera_big"])
        n.consumerStarted(trackId: "TR_v")
        let running = try n.setLayer(trackId: "TR_v", layer: nil)
        #expect(running == true)
        let unsubscribed = n.unsubscribe(trackId: "TR_v")
        #expect(unsubscribed?.wasConsuming == true)
    }
}
