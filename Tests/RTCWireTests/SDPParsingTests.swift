import Testing
@testable import RTCWire

/// Parsing the Chrome offer fixture into the typed model (RFC 8866, RFC 8829).
@Suite struct SDPParsingTests {
    static let offer = try! SessionDescription(parsing: ChromeOfferFixture.text)

    @Test func sessionLevelFields() {
        let offer = Self.offer
        #expect(offer.version == 0)
        #expect(offer.origin == SDPOrigin(sessionID: "4215775240449105457", sessionVersion: 2))
        #expect(offer.sessionName == "-")
        #expect(offer.timing == SDPTiming(start: 0, stop: 0))
        #expect(offer.groups == [SDPGroup(semantics: "BUNDLE", mids: ["0", "1", "2"])])
        #expect(offer.bundleMids == ["0", "1", "2"])
        #expect(offer.extmapAllowMixed)
        #expect(offer.msidSemantic == MSIDSemantic(semantic: "WMS", identifiers: ["3d1f5a7e-0c1b-4c5e-9f0a-7b2d8e6c4a11"]))
        #expect(!offer.iceLite)
        #expect(offer.media.map(\.kind) == [.audio, .video, .video])
    }

    @Test func audioSectionTransportAndCandidates() throws {
        let audio = try #require(Self.offer.media(mid: "0"))
        #expect(audio.port == 54321 && audio.proto == "UDP/TLS/RTP/SAVPF")
        #expect(audio.connection == SDPConnection(address: "192.168.1.10"))
        #expect(audio.iceUfrag == "Hk3v" && audio.icePwd == "rJyKpWvz8mOqk5P3tGh0YbN2")
        #expect(audio.iceOptions == ["trickle"])
        #expect(audio.fingerprints.count == 1)
        #expect(audio.fingerprints[0].algorithm == "sha-256")
        #expect(audio.fingerprints[0].bytes.prefix(4) == [0x4F, 0x7E, 0xAE, 0x63])
        #expect(audio.fingerprints[0].hexValue == ChromeOfferFixture.fingerprintHex)
        #expect(audio.setup == .actpass)
        #expect(audio.direction == .sendonly)
        #expect(audio.rtcpMux && audio.rtcpReducedSize)
        #expect(audio.attributes == [SDPAttribute(name: "rtcp", value: "9 IN IP4 0.0.0.0")])

        #expect(audio.candidates.count == 3)
        let host = audio.candidates[0]
        #expect(host.foundation == "1467250027" && host.component == 1 && host.transport == "udp")
        #expect(host.priority == 2_122_260_223 && host.address == "192.168.1.10" && host.port == 54321)
        #expect(host.kind == .host && host.relatedAddress == nil)
        #expect(host.extensionValue("generation") == "0" && host.extensionValue("network-cost") == "10")
        let srflx = audio.candidates[1]
        #expect(srflx.kind == .serverReflexive && srflx.relatedAddress == "192.168.1.10" && srflx.relatedPort == 54321)
        #expect(audio.candidates[2].transport == "tcp" && audio.candidates[2].extensionValue("tcptype") == "active")
    }

    @Test func audioCodecsExtensionsAndSSRCs() throws {
        let audio = try #require(Self.offer.media(mid: "0"))
        #expect(audio.formats == ["111", "63", "9", "0", "8", "13", "110", "126"])
        #expect(audio.codecs.map(\.payloadType) == [111, 63, 9, 0, 8, 13, 110, 126])
        let opus = try #require(audio.codec(payloadType: 111))
        #expect(opus.name == "opus" && opus.clockRate == 48_000 && opus.channels == 2)
        #expect(opus.formatParameters == "minptime=10;useinbandfec=1")
        #expect(opus.parameter("useinbandfec") == "1" && opus.parameter("minptime") == "10")
        #expect(opus.feedback == [RTCPFeedback(type: "transport-cc")])
        #expect(audio.codec(payloadType: 0)?.name == "PCMU" && audio.codec(payloadType: 0)?.channels == nil)
        #expect(audio.extensions.map(\.id) == [1, 2, 3, 4])
        #expect(audio.extensionID(uri: RTPHeaderExtensionURI.audioLevel) == 1)
        #expect(audio.extensionID(uri: RTPHeaderExtensionURI.mid) == 4)
        #expect(audio.msid == [MediaStreamID(
            streamID: "3d1f5a7e-0c1b-4c5e-9f0a-7b2d8e6c4a11", trackID: "a0b1c2d3-e4f5-4a6b-8c7d-9e0f1a2b3c4d")])
        #expect(audio.ssrcList == [3_735_928_559])
        #expect(audio.cname(ssrc: 3_735_928_559) == "Yq2n8JjCkT6bXp0v")
    }

    @Test func cameraSectionSimulcastAndRTX() throws {
        let video = try #require(Self.offer.media(mid: "1"))
        let vp8 = try #require(video.codec(payloadType: 96))
        #expect(vp8.name == "VP8" && vp8.clockRate == 90_000)
        #expect(vp8.feedback == RTCPFeedback.videoDefaults)
        let rtx = try #require(video.codec(payloadType: 97))
        #expect(rtx.isRTX && rtx.associatedPayloadType == 96)
        #expect(video.codec(payloadType: 102)?.parameter("profile-level-id") == "42001f")
        #expect(video.extensionID(uri: RTPHeaderExtensionURI.rid) == 10)
        #expect(video.extensionID(uri: RTPHeaderExtensionURI.repairedRid) == 11)
        #expect(video.rids == ["q", "h", "f"].map { RID(id: $0, direction: .send) })
        #expect(video.simulcast?.sendRIDs == ["q", "h", "f"])
        #expect(video.simulcast?.receive.isEmpty == true)
        #expect(video.ssrcs.isEmpty)
    }

    @Test func screenSectionPairsRTXWithFID() throws {
        let screen = try #require(Self.offer.media(mid: "2"))
        #expect(screen.ssrcGroups == [SSRCGroup(semantics: "FID", ssrcs: [1_111_111_111, 2_222_222_222])])
        #expect(screen.rtxSSRC(for: 1_111_111_111) == 2_222_222_222)
        #expect(screen.ssrcList == [1_111_111_111, 2_222_222_222])
        #expect(screen.ssrcs[1] == SSRCAttribute(
            ssrc: 1_111_111_111, name: "msid",
            value: "3d1f5a7e-0c1b-4c5e-9f0a-7b2d8e6c4a11 c2d3e4f5-a6b7-4c8d-9e0f-1a2b3c4d5e6f"))
    }

    @Test func serializeThenReparseIsEqualAndUsesCRLF() throws {
        let text = Self.offer.serialize()
        #expect(text.hasSuffix("\r\n"))
        #expect(!text.replacingCRLF.contains("\r"))
        #expect(try SessionDescription(parsing: text) == Self.offer)
        #expect(text.hasPrefix("v=0\r\no=- 4215775240449105457 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\na=group:BUNDLE 0 1 2\r\n"))
        #expect(text.contains("\r\na=msid-semantic: WMS 3d1f5a7e-0c1b-4c5e-9f0a-7b2d8e6c4a11\r\n"))
        #expect(text.contains("\r\na=rtpmap:111 opus/48000/2\r\na=rtcp-fb:111 transport-cc\r\na=fmtp:111 minptime=10;useinbandfec=1\r\n"))
        #expect(text.contains("\r\na=simulcast:send q;h;f\r\n"))
    }

    @Test func acceptsBareLineFeeds() throws {
        let text = ChromeOfferFixture.lines.joined(separator: "\n")
        #expect(try SessionDescription(parsing: text) == Self.offer)
    }

    @Test func keepsUnknownAttributesAndLinesThroughARoundTrip() throws {
        let text = [
            "v=0", "o=- 1 1 IN IP4 0.0.0.0", "s=-", "i=session info", "b=AS:500", "t=0 0", "a=x-session:1",
            "m=video 9 UDP/TLS/RTP/SAVPF 96", "i=camera", "c=IN IP4 0.0.0.0", "b=TIAS:1000000",
            "a=x-google-flag:conference", "a=rtpmap:96 VP8/90000", "a=fmtp:100 apt=96", "a=framerate:30",
        ].joined(separator: "\r\n")
        let parsed = try SessionDescription(parsing: text)
        #expect(parsed.attributes == [SDPAttribute(name: "x-session", value: "1")])
        #expect(parsed.otherLines == [SDPLine(type: "i", value: "session info"), SDPLine(type: "b", value: "AS:500")])
        #expect(parsed.media[0].otherLines == [SDPLine(type: "i", value: "camera"), SDPLine(type: "b", value: "TIAS:1000000")])
        #expect(parsed.media[0].attributes == [
            SDPAttribute(name: "x-google-flag", value: "conference"),
            SDPAttribute(name: "fmtp", value: "100 apt=96"),  // payload type not in m=: kept as is
            SDPAttribute(name: "framerate", value: "30"),
        ])
        let rewritten = parsed.serialize()
        #expect(rewritten.contains("a=x-google-flag:conference\r\n") && rewritten.contains("b=TIAS:1000000\r\n"))
        #expect(try SessionDescription(parsing: rewritten) == parsed)
    }

    @Test func candidateParsesTrickleFormsAndRoundTrips() throws {
        let line = "candidate:842163049 1 udp 1686052607 203.0.113.7 61000 typ srflx raddr 0.0.0.0 rport 0 generation 0 ufrag Hk3v"
        let candidate = try Candidate(parsing: line)
        #expect(candidate.candidateLine == line)
        #expect(try Candidate(parsing: "a=" + line) == candidate)
        #expect(candidate.extensionValue("ufrag") == "Hk3v")
        #expect(Candidate.priority(typePreference: 126) == 2_130_706_431)
        #expect(throws: SDPError.invalidAttribute(line: 0, name: "candidate")) {
            try Candidate(parsing: "candidate:1 1 udp 1 1.2.3.4 99999 typ host")
        }
    }
}

extension String {
    /// The text with every CRLF removed, to check no bare CR is left.
    var replacingCRLF: String { split(separator: "\r\n", omittingEmptySubsequences: false).joined() }
}
