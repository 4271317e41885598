import RTCMedia
import RTCNet
import RTCTransport
import RTCWire
import Testing
@testable import SRTCCore

@Suite struct SDPNegotiationTests {
    let ice = ICECredentials(ufrag: "cLnT", pwd: "clientpassword0123456789")
    let fingerprint = DTLSFingerprint(algorithm: "sha-256", bytes: Array(0..<32))

    func offer(_ sections: [SDPNegotiation.PublishSection]) throws -> SessionDescription {
        try SessionDescription(parsing: SDPNegotiation.publishOffer(sections: sections, ice: ice, fingerprint: fingerprint,
                                                                     sessionID: "42", version: 3, cname: "cn"))
    }

    @Test func publishOfferIsBundledSendonlyActpassWithCredentials() throws {
        let audio = SDPNegotiation.PublishSection(mid: "0", kind: .audio, streamLabel: "cn", trackLabel: "a1", ssrcs: [1111], rids: [])
        let video = SDPNegotiation.PublishSection(mid: "1", kind: .video, streamLabel: "cn", trackLabel: "v1", ssrcs: [2222], rids: [])
        let sdp = try offer([audio, video])
        #expect(sdp.bundleMids == ["0", "1"])
        #expect(sdp.origin.sessionVersion == 3)
        for m in sdp.media {
            #expect(m.direction == .sendonly)
            #expect(m.rtcpMux)
            #expect(sdp.setup(of: m) == .actpass)
            #expect(sdp.iceUfrag(of: m) == "cLnT")
            #expect(sdp.icePwd(of: m) == "clientpassword0123456789")
            #expect(sdp.fingerprints(of: m).first?.bytes == Array(0..<32))
            #expect(m.candidates.isEmpty) // the ICE-lite server learns our address from checks
        }
        let a = try #require(sdp.media(mid: "0"))
        #expect(a.codecs.map(\.name) == ["opus", "red"])
        #expect(a.codecs.first?.payloadType == 111)
        // RED around Opus (RFC 2198), as Chromium offers it.
        #expect(a.codecs[1].payloadType == 63 && a.codecs[1].formatParameters == "111/111")
        #expect(a.codecs.first?.channels == 2)
        #expect(a.extensionID(uri: RTPHeaderExtensionURI.audioLevel) == 1)
        #expect(a.extensionID(uri: RTPHeaderExtensionURI.mid) == 4)
        #expect(a.ssrcList == [1111])
        #expect(a.cname(ssrc: 1111) == "cn")
        let v = try #require(sdp.media(mid: "1"))
        #expect(v.codecs.map(\.name) == ["VP8", "H264"])
        #expect(v.codecs.allSatisfy { $0.feedback.map(\.description) == ["nack", "nack pli", "ccm fir"] })
        #expect(v.codecs[1].isH264ConstrainedBaselineMode1)
        #expect(v.extensionID(uri: RTPHeaderExtensionURI.rid) == 10)
        #expect(v.ssrcList == [2222])
        #expect(v.simulcast == nil)
    }

    /// Opus DTX (RFC 7587 §6.1): offered as `usedtx=1` when configured; a section whose Opus
    /// says `usedtx=1` is read as wanting DTX, one without it not.
    @Test func opusDTXIsOfferedWhenConfiguredAndReadFromTheAnswer() throws {
        let audio = SDPNegotiation.PublishSection(mid: "0", kind: .audio, streamLabel: "cn", trackLabel: "a", ssrcs: [7], rids: [])
        for dtx in [true, false] {
            let text = SDPNegotiation.publishOffer(sections: [audio], ice: ice, fingerprint: fingerprint, sessionID: "1", version: 2,
                                                   cname: "cn", opusDTX: dtx)
            let opus = try #require(try SessionDescription(parsing: text).media(mid: "0")?.codecs.first)
            #expect(opus.parameter("usedtx") == (dtx ? "1" : nil))
            #expect(opus.parameter("useinbandfec") == "1")
            // The server's answer keeps the offer's fmtp: read back as such.
            #expect(try SDPNegotiation.describe(text).section(mid: "0")?.usesDTX == dtx)
        }
    }

    /// The preferred codec goes first (the server forwards the first it takes); H.264 is offered in
    /// packetization-mode 1, Constrained Baseline 3.1 (RFC 6184 §8.1).
    @Test func preferringH264OffersItFirst() throws {
        let video = SDPNegotiation.PublishSection(mid: "0", kind: .video, streamLabel: "cn", trackLabel: "v", ssrcs: [7], rids: [])
        let text = SDPNegotiation.publishOffer(sections: [video], ice: ice, fingerprint: fingerprint, sessionID: "1", version: 2,
                                               cname: "cn", videoCodec: .h264)
        let m = try #require(try SessionDescription(parsing: text).media(mid: "0"))
        #expect(m.codecs.map(\.name) == ["H264", "VP8"])
        #expect(m.formats.first == "102")
        #expect(text.contains("a=fmtp:102 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f\r\n"))
    }

    /// An encoded track's section (`LocalEncodedVideoTrack`) offers its codec alone, whatever the
    /// engine prefers: its frames cannot be sent in another; the other sections keep the usual list.
    @Test func anEncodedTracksSectionOffersItsCodecAlone() throws {
        var encoded = SDPNegotiation.PublishSection(mid: "0", kind: .video, streamLabel: "cn", trackLabel: "v", ssrcs: [7], rids: [])
        encoded.onlyCodec = .h264
        let camera = SDPNegotiation.PublishSection(mid: "1", kind: .video, streamLabel: "cn", trackLabel: "w", ssrcs: [8], rids: [])
        let sdp = try offer([encoded, camera])
        #expect(try #require(sdp.media(mid: "0")).codecs.map(\.name) == ["H264"])
        #expect(try #require(sdp.media(mid: "1")).codecs.map(\.name) == ["VP8", "H264"])
    }

    /// An encoded Main track (a passed-through ingress) offers its own profile-level-id; the
    /// subscribe side takes H.264 Main and High as it takes Constrained Baseline (OpenH264 decodes
    /// them) and keeps the offer's profile in the answer.
    @Test func anEncodedMainTrackOffersItsProfileAndMainIsAcceptedWhenSubscribing() throws {
        var encoded = SDPNegotiation.PublishSection(mid: "0", kind: .video, streamLabel: "cn", trackLabel: "v", ssrcs: [7], rids: [])
        encoded.onlyCodec = .h264
        encoded.h264ProfileLevelID = "4d0028"
        let h264 = try #require(try offer([encoded]).media(mid: "0")?.codecs.first)
        #expect(h264.parameter("profile-level-id") == "4d0028" && h264.parameter("packetization-mode") == "1")
        let main = Codec.h264(payloadType: 104, profile: .main), high = Codec.h264(payloadType: 106, profile: .high)
        let answered = SDPNegotiation.receiveCapabilities.negotiate([main, high], kind: .video)
        #expect(answered.map(\.payloadType) == [104, 106])
        #expect(answered.first?.parameter("profile-level-id") == "4d001f")
    }

    /// Preferring AV1 offers it first (Main profile: no `profile` parameter, av1-rtp-spec §7.2.1)
    /// with VP8 and H.264 behind it, and the Dependency Descriptor the sender writes.
    @Test func preferringAV1OffersItFirstWithTheDependencyDescriptor() throws {
        let video = SDPNegotiation.PublishSection(mid: "0", kind: .video, streamLabel: "cn", trackLabel: "v", ssrcs: [7], rids: [])
        let text = SDPNegotiation.publishOffer(sections: [video], ice: ice, fingerprint: fingerprint, sessionID: "1", version: 2,
                                               cname: "cn", videoCodec: .av1)
        let m = try #require(try SessionDescription(parsing: text).media(mid: "0"))
        #expect(m.codecs.map(\.name) == ["AV1", "VP8", "H264"])
        #expect(m.formats.first == "45")
        #expect(m.codecs[0].feedback.map(\.description) == ["nack", "nack pli", "ccm fir"])
        #expect(m.extensionID(uri: RTPHeaderExtensionURI.dependencyDescriptor) == 11)
        // Without AV1 preferred, no descriptor is offered.
        let vp8 = try #require(try offer([video]).media(mid: "0"))
        #expect(vp8.extensionID(uri: RTPHeaderExtensionURI.dependencyDescriptor) == nil)
    }

    /// The subscribe answer accepts AV1 (dav1d decodes it) but not its descriptor: this client
    /// assembles frames from the payload alone, and the server then writes none.
    @Test func anAV1SubscriberOfferIsAnsweredWithAV1AndWithoutTheDescriptor() throws {
        let text = Self.serverOffer
            .replacingOccurrences(of: "a=rtpmap:96 VP8/90000\r\na=rtcp-fb:96", with: "a=rtpmap:96 AV1/90000\r\na=rtcp-fb:96")
            .replacingOccurrences(of: "a=mid:1\r\n", with: "a=mid:1\r\na=extmap:6 \(RTPHeaderExtensionURI.dependencyDescriptor)\r\n")
        let video = try #require(try SDPNegotiation.describe(text).section(mid: "1"))
        #expect(video.videoCodec == .av1)
        #expect(video.dependencyDescriptorID == 6)
        let answer = try SessionDescription(parsing: SDPNegotiation.subscribeAnswer(to: text, ice: ice, fingerprint: fingerprint, sessionID: "9"))
        let answered = try #require(answer.media(mid: "1"))
        #expect(answered.codecs.map(\.name) == ["AV1"])
        #expect(answered.extensionID(uri: RTPHeaderExtensionURI.dependencyDescriptor) == nil)
        // AV1 in another profile is not decoded here.
        let high = text.replacingOccurrences(of: "a=rtpmap:96 AV1/90000\r\n", with: "a=rtpmap:96 AV1/90000\r\na=fmtp:96 profile=1\r\n")
        #expect(try SDPNegotiation.describe(high).section(mid: "1")?.videoCodec == nil)
    }

    /// An answer or `subscriber_offer` names the codec the transport carries; H.264 is read only in
    /// packetization-mode 1 Constrained Baseline, which the subscribe answer alone accepts.
    /// (encoding name, fmtp, the codec read: "" for none).
    @Test(arguments: [("H264", "packetization-mode=1;profile-level-id=42e01f", "H264"),
                      ("VP8", "", "VP8"),
                      ("H264", "packetization-mode=0;profile-level-id=42e01f", ""),
                      ("H264", "packetization-mode=1;profile-level-id=640c1f", "")])
    func theSectionsVideoCodecIsRead(name: String, fmtp: String, read: String) throws {
        let expected = VideoCodec(encodingName: read)
        var text = Self.serverOffer.replacingOccurrences(of: "a=rtpmap:96 VP8/90000\r\na=rtcp-fb:96", with: "a=rtpmap:96 \(name)/90000\r\na=rtcp-fb:96")
        if !fmtp.isEmpty { text = text.replacingOccurrences(of: "a=rtpmap:96 \(name)/90000\r\n", with: "a=rtpmap:96 \(name)/90000\r\na=fmtp:96 \(fmtp)\r\n") }
        let video = try #require(try SDPNegotiation.describe(text).section(mid: "1"))
        #expect(video.videoCodec == expected)
        #expect(video.payloadType == (expected == nil ? nil : 96))
        let answer = try SessionDescription(parsing: SDPNegotiation.subscribeAnswer(to: text, ice: ice, fingerprint: fingerprint, sessionID: "9"))
        let answered = try #require(answer.media(mid: "1"))
        #expect(answered.isRejected == (expected == nil))
        if expected != nil { #expect(answered.codecs.map(\.name) == [name]) }
    }

    @Test func simulcastVideoDeclaresRidsAndNoSSRCs() throws {
        let camera = SDPNegotiation.PublishSection(mid: "0", kind: .video, streamLabel: "cn", trackLabel: "cam",
                                                   ssrcs: [5, 6], rids: ["h", "l"])
        let text = SDPNegotiation.publishOffer(sections: [camera], ice: ice, fingerprint: fingerprint, sessionID: "1", version: 2, cname: "cn")
        #expect(text.contains("a=rid:h send\r\n"))
        #expect(text.contains("a=rid:l send\r\n"))
        #expect(text.contains("a=simulcast:send h;l\r\n"))
        #expect(!text.contains("a=ssrc:"))
        #expect(text.contains("a=msid:cn cam\r\n"))
    }

    @Test func unpublishedSectionsStayInactiveAndKeepTheirMid() throws {
        var gone = SDPNegotiation.PublishSection(mid: "0", kind: .audio, streamLabel: "cn", trackLabel: "a", ssrcs: [1], rids: [])
        gone.active = false
        let live = SDPNegotiation.PublishSection(mid: "1", kind: .video, streamLabel: "cn", trackLabel: "v", ssrcs: [2], rids: [])
        let sdp = try offer([gone, live])
        #expect(sdp.media.map(\.mid) == ["0", "1"])
        #expect(sdp.media.map(\.direction) == [.inactive, .sendonly])
        #expect(sdp.media[0].ssrcList.isEmpty)
    }

    /// A subscriber offer as an ICE-lite SFU writes one: two sending sections (with msid track
    /// ids and SSRCs, VP8 with RTX) and a section left inactive after an unsubscribe.
    static let serverOffer = [
        "v=0", "o=- 77 5 IN IP4 127.0.0.1", "s=-", "t=0 0",
        "a=group:BUNDLE 0 1 2", "a=ice-lite",
        "a=ice-ufrag:SeRv", "a=ice-pwd:serverpassword0123456789",
        "a=fingerprint:sha-256 " + (0..<32).map { String(format: "%02X", 255 - $0) }.joined(separator: ":"),
        "a=setup:actpass",
        "m=audio 7881 UDP/TLS/RTP/SAVPF 111", "c=IN IP4 127.0.0.1",
        "a=candidate:1 1 udp 2130706431 127.0.0.1 7881 typ host",
        "a=mid:0", "a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level", "a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid",
        "a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01",
        "a=sendonly", "a=msid:alice TR_a", "a=rtcp-mux", "a=rtpmap:111 opus/48000/2", "a=fmtp:111 minptime=10;useinbandfec=1",
        "a=ssrc:1111 cname:sfu",
        "m=video 7881 UDP/TLS/RTP/SAVPF 96 97", "c=IN IP4 127.0.0.1", "a=mid:1",
        "a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid", "a=sendonly", "a=msid:alice TR_v", "a=rtcp-mux",
        "a=rtpmap:96 VP8/90000", "a=rtcp-fb:96 nack", "a=rtcp-fb:96 nack pli", "a=rtcp-fb:96 goog-remb",
        "a=rtpmap:97 rtx/90000", "a=fmtp:97 apt=96", "a=ssrc:2222 cname:sfu",
        "m=video 7881 UDP/TLS/RTP/SAVPF 96", "c=IN IP4 127.0.0.1", "a=mid:2", "a=inactive", "a=rtcp-mux", "a=rtpmap:96 VP8/90000",
    ].joined(separator: "\r\n") + "\r\n"

    @Test func serverDescriptionsAreReadForTransportAndTracks() throws {
        let remote = try SDPNegotiation.describe(Self.serverOffer)
        #expect(remote.iceUfrag == "SeRv")
        #expect(remote.icePwd == "serverpassword0123456789")
        #expect(remote.iceLite)
        #expect(remote.setup == .actpass)
        #expect(remote.fingerprint.bytes == (0..<32).map { UInt8(255 - $0) })
        #expect(remote.candidates.map(\.address) == [SocketAddress(ip: "127.0.0.1", port: 7881)!])
        #expect(remote.sessionVersion == 5)
        let audio = try #require(remote.section(mid: "0"))
        #expect(audio.kind == .audio && audio.direction == .sendonly && audio.trackID == "TR_a" && audio.ssrcs == [1111])
        #expect(audio.payloadType == 111 && audio.audioLevelID == 1 && audio.midID == 4 && audio.transportCCID == 3)
        let video = try #require(remote.section(mid: "1"))
        #expect(video.kind == .video && video.trackID == "TR_v" && video.ssrcs == [2222] && video.payloadType == 96)
        #expect(remote.section(mid: "2")?.direction == .inactive)
    }

    @Test func subscribeAnswerIsRecvonlyActiveAndNarrowedToWhatTheClientDecodes() throws {
        let text = try SDPNegotiation.subscribeAnswer(to: Self.serverOffer, ice: ice, fingerprint: fingerprint, sessionID: "9")
        let answer = try SessionDescription(parsing: text)
        #expect(answer.media.map(\.mid) == ["0", "1", "2"])
        #expect(answer.media.map(\.direction) == [.recvonly, .recvonly, .inactive])
        #expect(answer.bundleMids == ["0", "1", "2"])
        for m in answer.media {
            #expect(answer.setup(of: m) == .active)
            #expect(answer.iceUfrag(of: m) == "cLnT")
        }
        #expect(!answer.iceLite)
        let video = try #require(answer.media(mid: "1"))
        #expect(video.codecs.map(\.name) == ["VP8"])          // no RTX
        #expect(video.codecs.first?.feedback.map(\.description) == ["nack", "nack pli"]) // goog-remb not taken
        let audio = try #require(answer.media(mid: "0"))
        // transport-cc kept: this client sends its feedback (the server's estimate and probing use it).
        #expect(audio.extensions.map(\.uri) == [RTPHeaderExtensionURI.audioLevel, RTPHeaderExtensionURI.mid, RTPHeaderExtensionURI.transportWideCC])
    }

    @Test func anOfferThatWantsToBeTheDTLSClientMakesThisSideTheServer() throws {
        let text = try SDPNegotiation.subscribeAnswer(to: Self.serverOffer.replacingOccurrences(of: "a=setup:actpass", with: "a=setup:active"),
                                                      ice: ice, fingerprint: fingerprint, sessionID: "9")
        #expect(text.contains("a=setup:passive"))
        #expect(SDPNegotiation.localDTLSRole(remoteSetup: .active) == .server)
        #expect(SDPNegotiation.localDTLSRole(remoteSetup: .passive) == .client)
        #expect(SDPNegotiation.localDTLSRole(remoteSetup: .actpass) == .client)
    }

    @Test(arguments: ["", "not sdp", "v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=mid:0\r\n"])
    func unusableDescriptionsAreRefused(text: String) {
        #expect(throws: SRTCError.self) { try SDPNegotiation.describe(text) }
    }
}

@Suite struct RTPSendPathTests {
    @Test func headerWithOneByteExtensionsIsWrittenByteForByte() throws {
        var buffer = [UInt8](repeating: 0xEE, count: 64)
        let elements = [RTPHeaderWriter.Element(id: 4, bytes: Array("0".utf8))!, RTPHeaderWriter.Element(id: 10, bytes: Array("h".utf8))!]
        let length = buffer.withUnsafeMutableBytes {
            RTPHeaderWriter.write(into: $0, marker: true, payloadType: 96, sequenceNumber: 0x1234, timestamp: 0xAABBCCDD,
                                  ssrc: 0x01020304, elements: elements)
        }
        #expect(length == 20)
        #expect(Array(buffer[0..<20]) == [
            0x90, 0xE0,             // V=2 P=0 X=1 CC=0 | M=1 PT=96
            0x12, 0x34,             // sequence number
            0xAA, 0xBB, 0xCC, 0xDD, // timestamp
            0x01, 0x02, 0x03, 0x04, // SSRC
            0xBE, 0xDE, 0x00, 0x01, // RFC 8285 one-byte profile, 1 word
            0x40, 0x30,             // id 4, len 1: "0"
            0xA0, 0x68,             // id 10, len 1: "h"
        ])
        // RTCWire reads back what was written.
        let parsed = try RTPPacket(parsing: Array(buffer[0..<20]))
        #expect(parsed.extensionValue(id: 4) == Array("0".utf8))
        #expect(parsed.extensionValue(id: 10) == Array("h".utf8))
        #expect(RTPHeaderWriter.Element(id: 15, bytes: [1]) == nil) // 15 is reserved in the one-byte form
    }

    @Test func senderPacketizesIntoTheCacheAndKeepsTimestampsPerFrame() throws {
        let sender = RTPStreamSender(kind: .video, parameters: .init(ssrc: 77, payloadType: 96, clockRate: 90_000, mid: "1",
                                                                    rid: "l", midID: 4, ridID: 10, audioLevelID: nil))
        let frame = EncodedVideoFrame(data: [UInt8](repeating: 0x10, count: 3_000), isKeyFrame: true, timestampUs: 1_000_000)
        let (first, count) = sender.packetize(video: frame)
        #expect(count == 3) // 3 000 bytes in ≤ 1 196-byte slices
        let packets = (0..<count).compactMap { i in sender.cachedPacket(first &+ UInt16(i)) }
        #expect(packets.count == 3)
        let parsed: [RTPPacket] = try packets.map { try RTPPacket(parsing: $0) }
        #expect(parsed.map(\.sequenceNumber) == [first, first &+ 1, first &+ 2])
        #expect(Set(parsed.map(\.timestamp)) == [90_000 &+ sender.timestampOffset])
        #expect(parsed.map(\.marker) == [false, false, true])
        #expect(parsed.allSatisfy { $0.ssrc == 77 && $0.extensionValue(id: 10) == Array("l".utf8) })
        let payloadBytes = parsed.map { $0.payload.count }.reduce(0, +)
        #expect(payloadBytes == 3_000 + 3 * 4) // data + one 4-byte VP8 descriptor each
    }

    /// An AV1 stream sent as one layer describes itself with L1T1 Dependency Descriptors
    /// (av1-rtp-spec Appendix A): the structure in a key frame's first packet, start and end of
    /// frame, template 0 for key frames and 1 for delta frames, frame numbers one apart.
    @Test func anAV1SenderWritesSingleLayerDependencyDescriptors() throws {
        var parameters = RTPStreamSender.Parameters(ssrc: 5, payloadType: 45, clockRate: 90_000, mid: "0", rid: nil,
                                                    midID: 4, ridID: nil, audioLevelID: nil)
        parameters.videoCodec = .av1
        parameters.dependencyDescriptorID = 11
        let sender = RTPStreamSender(kind: .video, parameters: parameters)
        let pattern = try TestPatternGenerator(width: 320, height: 240)
        var configuration = AV1Encoder.Configuration(width: 320, height: 240)
        configuration.bitrate = 2_000_000
        let encoder = try AV1Encoder(configuration: configuration)
        var reader = DependencyDescriptorReader()
        var depacketizer = AV1Depacketizer()
        let decoder = try AV1Decoder()
        var frameNumbers: [UInt16] = [], decoded: [Int?] = []
        for number in 0..<3 {
            let frame = try #require(try encoder.encode(pattern.videoFrame(number: number)))
            let (first, count) = sender.packetize(video: frame)
            let packets: [RTPPacket] = try (0..<count).map { i in try RTPPacket(parsing: try #require(sender.cachedPacket(first &+ UInt16(i)))) }
            #expect(number > 0 || count > 1, "a key frame spans several packets")
            var unit: [UInt8] = []
            depacketizer.reset()
            for (index, packet) in packets.enumerated() {
                #expect(packet.payloadType == 45 && packet.marker == (index == count - 1))
                let value = try #require(packet.extensionValue(id: 11))
                #expect(value.count <= DependencyDescriptorWriter.maxLength)
                let d = try reader.read(value)
                #expect(d.startOfFrame == (index == 0) && d.endOfFrame == (index == count - 1))
                #expect(d.carriesStructure == (number == 0 && index == 0))
                #expect(d.templateID == (number == 0 ? 0 : 1))
                #expect(d.frameDiffList == (number == 0 ? [] : [1]))
                #expect(d.indication(for: 0) == .switch)
                if index == 0 { frameNumbers.append(d.frameNumber) }
                try packet.payload.withUnsafeBytes { try depacketizer.append($0, to: &unit) }
            }
            decoded.append(try decoder.decode(unit).flatMap(TestPatternReader.frameNumber(in:)))
        }
        #expect(frameNumbers == [frameNumbers[0], frameNumbers[0] &+ 1, frameNumbers[0] &+ 2])
        #expect(reader.structure == ScalabilityMode.l1t1.structure)
        #expect(decoded == [0, 1, 2])
        // A simulcast layer (rid) writes none: its descriptors would not continue the other layer's.
        parameters.rid = "h"
        parameters.ridID = 10
        let layer = RTPStreamSender(kind: .video, parameters: parameters)
        let (first, _) = layer.packetize(video: try #require(try encoder.encode(pattern.videoFrame(number: 3), forceKeyFrame: true)))
        #expect(try RTPPacket(parsing: try #require(layer.cachedPacket(first))).extensionValue(id: 11) == nil)
    }

    @Test func audioPacketsCarryTheirLevel() throws {
        let sender = RTPStreamSender(kind: .audio, parameters: .init(ssrc: 9, payloadType: 111, clockRate: 48_000, mid: "0",
                                                                    rid: nil, midID: 4, ridID: nil, audioLevelID: 1))
        let (first, _) = sender.packetize(opus: [0xF8, 1, 2], samplePosition: 960, level: 33, voiceActivity: true)
        let packet = try RTPPacket(parsing: try #require(sender.cachedPacket(first)))
        #expect(packet.extensionValue(id: 1) == [0x80 | 33])
        #expect(packet.extensionValue(id: 4) == Array("0".utf8))
        #expect(packet.timestamp == 960 &+ sender.timestampOffset)
        #expect(packet.payload == [0xF8, 1, 2])
    }
}
