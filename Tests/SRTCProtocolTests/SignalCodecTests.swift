import Testing
@testable import SRTCProtocol
import TestRandom

@Suite struct SignalCodecTests {
    static let track = TrackInfo(id: "TR_1", uid: "alice", kind: .video, desc: "camera_big", muted: false,
                                 layers: [SimulcastLayer(rid: "h", desc: "camera_big", width: 1280, height: 720),
                                          SimulcastLayer(rid: "l", desc: "camera_small", width: 320, height: 180)], codec: "VP8")
    static let user = UserInfo(uid: "alice", nickname: "Alice", custom: #"{"role":"teacher"}"#, joinedAt: 1_700_000_000_000, tracks: [track])

    static let requests: [ClientRequest] = [
        ClientRequest(id: 1, .join(JoinRequest(token: "t", sessionId: "S1", nickname: "n", sdk: "test"))),
        ClientRequest(id: 14, .join(JoinRequest(token: "t", videoCodecs: ["vp9", "vp8"]))),
        ClientRequest(id: 2, .leave),
        ClientRequest(id: 3, .publish(PublishRequest(sdp: "v=0\r\n", tracks: [PublishTrack(mid: "0", kind: .audio, desc: "mic")]))),
        ClientRequest(id: 4, .unpublish(UnpublishRequest(trackId: "TR_1", sdp: nil))),
        ClientRequest(id: 5, .subscribe(SubscribeRequest(trackId: "TR_1", layer: "camera_small"))),
        ClientRequest(id: 6, .unsubscribe(TrackRef(trackId: "TR_1"))),
        ClientRequest(id: 7, .setLayer(SubscribeRequest(trackId: "TR_1", layer: "camera_big"))),
        ClientRequest(id: 8, .subscriberAnswer(SessionDescriptionMessage(sdp: "v=0", revision: 3))),
        ClientRequest(id: 9, .mute(MuteRequest(trackId: "TR_1", muted: true))),
        ClientRequest(id: 10, .sendMessage(SendMessageRequest(to: ["bob"], data: "hi"))),
        ClientRequest(id: 11, .updateProfile(ProfileUpdate(nickname: "A"))),
        ClientRequest(id: 12, .restartICE(RestartICERequest(transport: .subscribe))),
        ClientRequest(id: 13, .ping),
    ]

    @Test(arguments: requests)
    func clientRequestsRoundTrip(_ request: ClientRequest) throws {
        let text = SignalCodec.encode(request)
        #expect(try SignalCodec.decodeClientRequest(text) == request)
    }

    @Test func joinWireFormatIsAsDocumented() {
        let text = SignalCodec.encode(ClientRequest(id: 1, .join(JoinRequest(token: "tok"))))
        #expect(text == #"{"data":{"protocol":1,"token":"tok"},"id":1,"type":"join"}"#)
        let codecs = SignalCodec.encode(ClientRequest(id: 1, .join(JoinRequest(token: "tok", videoCodecs: ["vp9", "VP8"]))))
        #expect(codecs == #"{"data":{"protocol":1,"token":"tok","video_codecs":["vp9","VP8"]},"id":1,"type":"join"}"#)
    }

    static let events: [ServerMessage] = [
        .event(.userJoined(user)), .event(.userUpdated(user)), .event(.meUpdated(user)),
        .event(.userLeft(UserLeft(uid: "bob", reason: .kicked))),
        .event(.trackAdded(TrackEvent(uid: "alice", track: track))), .event(.trackUpdated(TrackEvent(uid: "alice", track: track))),
        .event(.trackRemoved(TrackEvent(uid: "alice", track: track))),
        .event(.subscriberOffer(SessionDescriptionMessage(sdp: "v=0", revision: 2))),
        .event(.message(CustomMessage(from: "alice", to: nil, data: "x", timestamp: 5))),
        .event(.channelUpdated(ChannelInfo(channel: "c", createdAt: 1, userCount: 2, metadata: "m"))),
        .event(.qualityReport(QualityReport(uid: "alice", timestamp: 1, upstream: LinkStats(bitrateBps: 1000, packets: 10, lossRate: 0.01, jitterMs: 3),
                                            downstream: LinkStats(), rttMs: 20, availableBitrateBps: 2_000_000, quality: .good))),
        .event(.connectionQuality(ConnectionQualityChange(uid: "alice", quality: .poor, previous: .good))),
        .event(.activeSpeakers(ActiveSpeakersSnapshot(speakers: [ActiveSpeaker(uid: "a", trackId: "TR_2", level: 0.8)]))),
        .event(.activeSpeakers(ActiveSpeakersSnapshot(speakers: []))),
        .event(.layerSwitched(LayerSwitchedInfo(uid: "alice", trackId: "TR_1", layer: "camera_big", previous: "camera_small", cause: "requested"))),
        .event(.layersNeeded(LayersNeeded(trackId: "TR_1", layers: ["camera_small"]))),
        .event(.caption(Caption(uid: "alice", text: "a cup of coffee", final: true, startMs: 1_765_000_000_000, endMs: 1_765_000_001_500))),
        .event(.subscriptionEnded(SubscriptionEnded(trackId: "TR_1", reason: "track_removed"))),
        .event(.disconnected(Disconnected(reason: .duplicateLogin, message: "joined elsewhere"))),
        .event(.reconnect(ReconnectNotice(reason: "node_draining"))),
        .response(id: 1, Response(type: "join", result: .success(.joined(JoinResponse(
            sessionId: "S", resumed: false, channel: ChannelInfo(channel: "c", createdAt: 1, userCount: 1), me: user, users: [],
            reconnectGraceSeconds: 20, serverTime: 9))))),
        .response(id: 2, Response(type: "publish", result: .success(.answer(PublishResponse(sdp: "v=0", tracks: [track]))))),
        .response(id: 3, Response(type: "unpublish", result: .success(.empty))),
        .response(id: 4, Response(type: "ping", result: .success(.pong(PongResponse(serverTime: 77))))),
        .response(id: 5, Response(type: "subscribe", result: .failure(SignalError(.notFound, "no track TR_9")))),
    ]

    @Test func aMovedResumeSaysSoAndOthersLeaveItOut() throws {
        var response = JoinResponse(sessionId: "S", resumed: true, channel: ChannelInfo(channel: "c", createdAt: 1, userCount: 1),
                                    me: Self.user, users: [], reconnectGraceSeconds: 20, serverTime: 9)
        let plain = SignalCodec.encode(.response(id: 1, Response(type: "join", result: .success(.joined(response)))))
        #expect(!plain.contains("moved"))
        response.moved = true
        let moved = SignalCodec.encode(.response(id: 1, Response(type: "join", result: .success(.joined(response)))))
        #expect(moved.contains(#""moved":true"#))
        #expect(try SignalCodec.decodeServerMessage(moved) == .response(id: 1, Response(type: "join", result: .success(.joined(response)))))
        #expect(SignalCodec.encode(.event(.reconnect(ReconnectNotice(reason: "node_draining")))) == #"{"data":{"reason":"node_draining"},"type":"reconnect"}"#)
    }

    /// docs/protocol.md, TrackInfo (issue 14's doc findings): a track without simulcast says
    /// `"layers": []`, `codec` is the encoding name as in the answer's `a=rtpmap` (`H264`, not
    /// lowered), and optional fields whose value is null are left out, never sent as `null`.
    @Test func aSingleStreamTrackHasNoLayersAndNullFieldsAreLeftOut() {
        let track = TrackInfo(id: "TR_2", uid: "bob", kind: .video, desc: "camera_big", codec: "H264")
        let joined = SignalCodec.encode(.event(.userJoined(UserInfo(uid: "bob", joinedAt: 1, tracks: [track]))))
        #expect(joined.contains(#""layers":[]"#) && joined.contains(#""codec":"H264""#))
        #expect(!joined.contains("nickname") && !joined.contains("custom"))
        let channel = SignalCodec.encode(.event(.channelUpdated(ChannelInfo(channel: "c", createdAt: 1, userCount: 2))))
        #expect(!channel.contains("metadata"))
        let layered = TrackInfo(id: "TR_3", uid: "bob", kind: .video, desc: "camera_big", layers: [SimulcastLayer(rid: "h", desc: "camera_big")])
        let added = SignalCodec.encode(.event(.trackAdded(TrackEvent(uid: "bob", track: layered))))
        #expect(!added.contains("max_bitrate") && !added.contains("width") && !added.contains("codec"))
        for text in [joined, channel, added] { #expect(!text.contains("null"), "\(text)") }
    }

    /// The samples above cover every type the wire names (DocsContractTests checks docs/protocol.md
    /// names the same ones).
    @Test func everyWireTypeIsSampled() {
        #expect(Set(Self.requests.map(\.body.typeName)) == Set(SignalCodec.requestTypes))
        let sampled = Set(Self.events.compactMap { if case .event(let e) = $0 { e.typeName } else { nil } })
        #expect(sampled == Set(SignalCodec.eventTypes))
    }

    @Test(arguments: events)
    func serverMessagesRoundTrip(_ message: ServerMessage) throws {
        #expect(try SignalCodec.decodeServerMessage(SignalCodec.encode(message)) == message)
    }

    @Test func errorResponseWireFormat() {
        let text = SignalCodec.encode(ServerMessage.response(id: 5, Response(type: "subscribe", result: .failure(SignalError(.notFound, "no track")))))
        #expect(text == #"{"error":{"code":40401,"message":"no track"},"id":5,"ok":false,"type":"subscribe"}"#)
    }

    @Test func unknownTypeKeepsTheIdSoItCanBeAnswered() {
        #expect(throws: SignalDecodeError.unknownType("dance", id: 4)) { try SignalCodec.decodeClientRequest(#"{"id":4,"type":"dance"}"#) }
    }

    @Test func requestWithoutIdIsRefused() {
        #expect(throws: SignalDecodeError.missingId("ping")) { try SignalCodec.decodeClientRequest(#"{"type":"ping"}"#) }
    }

    @Test func missingFieldIsNamed() {
        #expect(throws: SignalDecodeError.invalidData("subscribe", id: 3, reason: "missing field track_id")) {
            try SignalCodec.decodeClientRequest(#"{"id":3,"type":"subscribe","data":{}}"#)
        }
    }

    @Test(arguments: ["", "null", "[]", "42", "{", #"{"id":1}"#, #"{"type":7,"id":1}"#])
    func malformedMessagesThrow(_ text: String) {
        #expect(throws: SignalDecodeError.self) { try SignalCodec.decodeClientRequest(text) }
    }

    @Test func oversizedMessageIsRefusedBeforeParsing() {
        let big = #"{"id":1,"type":"send_message","data":{"data":""# + String(repeating: "x", count: 70_000) + #""}}"#
        #expect(throws: SignalDecodeError.tooLarge(big.utf8.count)) { try SignalCodec.decodeClientRequest(big) }
    }

    @Test func seededRandomTextNeverCrashes() {
        var rng = SeededRandom(seed: 7)
        let pieces = ["{", "}", "[", "]", "\"", ":", ",", "id", "type", "data", "join", "1", "null", "true", "\\u0000", "é", " "]
        for _ in 0..<3000 {
            let text = (0..<Int.random(in: 0..<40, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }.joined()
            _ = try? SignalCodec.decodeClientRequest(text)
            _ = try? SignalCodec.decodeServerMessage(text)
        }
    }
}
