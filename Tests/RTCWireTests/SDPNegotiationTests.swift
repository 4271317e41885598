import Testing
@testable import RTCWire

/// Building answers (server) and offers (client) (RFC 8829 §5.2–5.3, RFC 3264 §6).
@Suite struct SDPNegotiationTests {
    static let serverFingerprint = Fingerprint(bytes: (0 ..< 32).map { UInt8($0) })
    static let serverCandidate = Candidate(
        foundation: "1", priority: Candidate.priority(typePreference: 126), address: "198.51.100.4", port: 7881)
    static let serverTransport = TransportParameters(
        iceUfrag: "srvU", icePwd: "serverpassword0123456789", fingerprint: serverFingerprint, setup: .passive,
        candidates: [serverCandidate], endOfCandidates: true)

    static func answer() -> SessionDescription {
        SDPParsingTests.offer.answer(AnswerOptions(transport: serverTransport, iceLite: true, sessionID: "42"))
    }

    @Test func answerMirrorsSessionAndBundle() {
        let answer = Self.answer()
        #expect(answer.origin.sessionID == "42")
        #expect(answer.iceLite)
        #expect(answer.bundleMids == ["0", "1", "2"])
        #expect(answer.media.map(\.mid) == ["0", "1", "2"])
        #expect(answer.media.allSatisfy { $0.direction == .recvonly })
    }

    @Test func answerKeepsOnlySupportedCodecsWithOfferedPayloadTypes() throws {
        let answer = Self.answer()
        let audio = try #require(answer.media(mid: "0"))
        #expect(audio.formats == ["111"])
        #expect(audio.codecs == [Codec(
            payloadType: 111, name: "opus", clockRate: 48_000, channels: 2,
            formatParameters: "minptime=10;useinbandfec=1", feedback: [RTCPFeedback(type: "transport-cc")])])
        let video = try #require(answer.media(mid: "1"))
        #expect(video.formats == ["96", "97"])  // VP9/H.264 and their RTX dropped
        #expect(video.codec(payloadType: 97)?.associatedPayloadType == 96)
        #expect(video.codec(payloadType: 96)?.feedback == RTCPFeedback.videoDefaults)
    }

    @Test func answerKeepsSupportedExtensionsWithOfferedIDs() throws {
        let video = try #require(Self.answer().media(mid: "1"))
        #expect(video.extensions.map(\.id) == [2, 3, 4, 10, 11])
        #expect(video.extensions.map(\.uri).contains(RTPHeaderExtensionURI.rid))
        #expect(!video.extensions.map(\.uri).contains("urn:ietf:params:rtp-hdrext:toffset"))
    }

    @Test func answerReversesSimulcast() throws {
        let video = try #require(Self.answer().media(mid: "1"))
        #expect(video.simulcast?.receiveRIDs == ["q", "h", "f"])
        #expect(video.simulcast?.send.isEmpty == true)
        #expect(video.rids == ["q", "h", "f"].map { RID(id: $0, direction: .recv) })
        #expect(Self.answer().serialize().contains("\r\na=simulcast:recv q;h;f\r\n"))
    }

    @Test func answerCarriesServerTransport() throws {
        let audio = try #require(Self.answer().media(mid: "0"))
        #expect(audio.iceUfrag == "srvU" && audio.icePwd == "serverpassword0123456789")
        #expect(audio.fingerprints == [Self.serverFingerprint] && audio.setup == .passive)
        #expect(audio.candidates == [Self.serverCandidate] && audio.endOfCandidates)
        #expect(audio.port == 7881 && audio.connection == SDPConnection(address: "198.51.100.4"))
        #expect(audio.rtcpMux && audio.rtcpReducedSize)
        let text = Self.answer().serialize()
        #expect(text.contains("\r\na=candidate:1 1 udp 2130706431 198.51.100.4 7881 typ host\r\na=end-of-candidates\r\n"))
        #expect(try SessionDescription(parsing: text) == Self.answer())
    }

    @Test func unsupportedSectionsAreRejectedAndUnbundled() throws {
        var offer = SDPParsingTests.offer
        offer.media[0].setCodecs([Codec(payloadType: 9, name: "G722", clockRate: 8000)])
        let answer = offer.answer(AnswerOptions(transport: Self.serverTransport, sessionID: "1"))
        let audio = try #require(answer.media(mid: "0"))
        #expect(audio.isRejected && audio.formats == ["9"])
        #expect(answer.bundleMids == ["1", "2"])
        #expect(try SessionDescription(parsing: answer.serialize()) == answer)
    }

    @Test func dataChannelIsAcceptedOrRejected() throws {
        var offer = SDPParsingTests.offer
        offer.media.append(.dataChannel(mid: "3"))
        offer.bundleAll()
        let accepted = offer.answer(AnswerOptions(transport: Self.serverTransport, sessionID: "1"))
        let data = try #require(accepted.media(mid: "3"))
        #expect(!data.isRejected && data.sctpPort == 5000 && data.maxMessageSize == 262_144)
        #expect(data.formats == ["webrtc-datachannel"] && data.proto == "UDP/DTLS/SCTP")
        #expect(accepted.serialize().contains("m=application 7881 UDP/DTLS/SCTP webrtc-datachannel\r\n"))
        let rejected = offer.answer(AnswerOptions(transport: Self.serverTransport, sessionID: "1", acceptDataChannel: false))
        #expect(rejected.media(mid: "3")?.isRejected == true)
        #expect(rejected.bundleMids == ["0", "1", "2"])
    }

    @Test func clientOfferBuildsBundledSendSections() throws {
        let capabilities = MediaCapabilities.webRTC
        var audio = MediaDescription(
            kind: .audio, mid: "0", direction: .sendonly, codecs: [.opus()], extensions: capabilities.extMaps(for: .audio))
        audio.addSendStream(ssrc: 1001, cname: "bot", streamID: "s", trackID: "mic")
        var video = MediaDescription(
            kind: .video, mid: "1", direction: .sendonly, codecs: [.vp8(), .rtx()], extensions: capabilities.extMaps(for: .video))
        video.addSendStream(ssrc: 2001, rtxSSRC: 2002, cname: "bot", streamID: "s", trackID: "cam")
        let transport = TransportParameters(
            iceUfrag: "cliU", icePwd: "clientpassword0123456789", fingerprint: Self.serverFingerprint, setup: .actpass,
            iceOptions: ["trickle"])
        let offer = SessionDescription.offer(sessionID: "7", transport: transport, media: [audio, video])

        #expect(offer.bundleMids == ["0", "1"])
        #expect(offer.media[1].ssrcGroups == [SSRCGroup(semantics: "FID", ssrcs: [2001, 2002])])
        #expect(offer.media[0].extensions.map(\.id) == [1, 2, 3, 4])
        #expect(offer.media[1].extensions.map(\.id) == [2, 3, 4, 10, 11])
        let text = offer.serialize()
        #expect(text.contains("m=audio 9 UDP/TLS/RTP/SAVPF 111\r\nc=IN IP4 0.0.0.0\r\na=ice-ufrag:cliU\r\n"))
        #expect(text.contains("\r\na=ssrc:2001 msid:s cam\r\n"))
        let reparsed = try SessionDescription(parsing: text)
        #expect(reparsed == offer)

        // The server answers the client's offer; the client reads what the server accepted.
        let answer = reparsed.answer(AnswerOptions(transport: Self.serverTransport, iceLite: true, sessionID: "9"))
        #expect(answer.media.map(\.formats) == [["111"], ["96", "97"]])
        #expect(answer.media.map(\.direction) == [.recvonly, .recvonly])
    }

    @Test func sendSimulcastHelperWritesRidsAndSimulcast() {
        var video = MediaDescription(kind: .video, mid: "1", direction: .sendonly, codecs: [.vp8()])
        video.setSendSimulcast(rids: ["l", "h"])
        var writer = SDPWriter()
        video.write(into: &writer)
        #expect(writer.text.contains("a=rid:l send\r\na=rid:h send\r\na=simulcast:send l;h\r\n"))
    }
}

/// H.264 negotiation (RFC 6184 §8.1-8.2): packetization-mode 1 and a profile the other side
/// lists (Constrained Baseline, Main, High) are accepted whatever the level; mode 0, other
/// profiles and plain Baseline are not.
@Suite struct H264NegotiationTests {
    static func offered(_ fmtp: String?, pt: UInt8) -> Codec {
        Codec(payloadType: pt, name: "H264", clockRate: 90_000, formatParameters: fmtp, feedback: RTCPFeedback.videoDefaults)
    }

    @Test func onlyConstrainedBaselineMode1IsAccepted() {
        let capabilities = MediaCapabilities(audioCodecs: [.opus()], videoCodecs: [.vp8(), .h264()], headerExtensions: [])
        let offer = [
            Self.offered("level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f", pt: 102),
            Self.offered("level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=42e01f", pt: 103),
            Self.offered("level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=640c1f", pt: 104),
            Self.offered("packetization-mode=1;profile-level-id=42001f", pt: 106),
            Self.offered("packetization-mode=1;profile-level-id=4d8028", pt: 108),
            Self.offered(nil, pt: 110),
        ]
        #expect(capabilities.negotiate(offer, kind: .video).map(\.payloadType) == [102, 108])
    }

    /// Main and High are accepted by a side that lists them, each matching its own profile only
    /// (RFC 6184 §8.2.2: the answer keeps the offer's profile; the level may differ).
    @Test func mainAndHighMatchTheirOwnProfileOnly() {
        let capabilities = MediaCapabilities(audioCodecs: [.opus()], videoCodecs: [.h264(profile: .main), .h264(profile: .high)],
                                             headerExtensions: [])
        let offer = [
            Self.offered("level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f", pt: 102),  // CB: not listed
            Self.offered("level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=4d0028", pt: 104),  // Main 4.0
            Self.offered("level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=640c1f", pt: 106),  // Constrained High
            Self.offered("level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=640033", pt: 108),  // High 5.1
            Self.offered("level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=64001f", pt: 110),  // mode 0
            Self.offered("level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=6e001f", pt: 112),  // High 10
        ]
        let answered = capabilities.negotiate(offer, kind: .video)
        #expect(answered.map(\.payloadType) == [104, 108])
        // The answer keeps the offer's fmtp (its level).
        #expect(answered.first?.parameter("profile-level-id") == "4d0028")
    }

    @Test func profilesAreToldApart() {
        #expect(H264ProfileLevelID("42e01f")?.profile == .constrainedBaseline)
        #expect(H264ProfileLevelID("4d801f")?.profile == .constrainedBaseline)  // Main with constraint_set0
        #expect(H264ProfileLevelID("42001f")?.profile == nil)  // Baseline with FMO/ASO allowed
        #expect(H264ProfileLevelID("4d001f")?.profile == .main && H264ProfileLevelID("4d4028")?.profile == .main)
        #expect(H264ProfileLevelID("64001f")?.profile == .high && H264ProfileLevelID("640c1f")?.profile == nil)
        #expect(H264ProfileLevelID("f4001f")?.profile == nil)
        #expect(H264ProfileLevelID.level31(.main).description == "4d001f" && H264ProfileLevelID.level31(.high).description == "64001f")
        #expect(Codec.h264(profile: .high).h264Mode1Profile == .high)
    }

    @Test func profileLevelIDParsesAndPrints() {
        let id = H264ProfileLevelID("42e01f")
        #expect(id == .constrainedBaselineLevel31 && id?.description == "42e01f" && id?.isConstrainedBaseline == true)
        #expect(H264ProfileLevelID("42e01") == nil && H264ProfileLevelID("zzzzzz") == nil)
        #expect(H264ProfileLevelID("640c1f")?.isConstrainedBaseline == false)
    }
}
