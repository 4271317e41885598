import Foundation
import SMeetingProtocol
import SRTCProtocol
import Testing

/// Every JSON key the protocol types put on the wire is named in their doc (as `"key"`): each
/// message below is built with every optional field set, encoded by its codec, and its keys, at
/// any depth, looked up in the page a client is written from.
@Suite struct DocsFieldTests {
    /// The keys of a JSON text at every depth.
    static func keys(_ text: String) -> Set<String> {
        func walk(_ value: Any) -> Set<String> {
            if let object = value as? [String: Any] { return object.reduce(into: Set(object.keys)) { $0.formUnion(walk($1.value)) } }
            if let array = value as? [Any] { return array.reduce(into: []) { $0.formUnion(walk($1)) } }
            return []
        }
        return (try? JSONSerialization.jsonObject(with: Data(text.utf8))).map(walk) ?? []
    }

    /// The keys of `texts` that `doc` never writes as `"key"`.
    static func undocumented(_ texts: [String], in doc: String) -> [String] {
        let all = texts.reduce(into: Set<String>()) { $0.formUnion(keys($1)) }
        return all.filter { !doc.contains("\"\($0)\"") }.sorted()
    }

    @Test func signalingKeysAreInProtocolDoc() {
        let layer = SimulcastLayer(rid: "h", desc: "camera_big", width: 1280, height: 720, maxBitrate: 1_500_000)
        let track = TrackInfo(id: "TR_1", uid: "bob", kind: .video, desc: "camera_big", layers: [layer], codec: "VP8")
        let user = UserInfo(uid: "bob", nickname: "Bob", custom: "{}", joinedAt: 1, tracks: [track])
        let channel = ChannelInfo(channel: "room1", createdAt: 1, userCount: 2, metadata: "m")
        let link = LinkStats(bitrateBps: 1, packets: 1, lossRate: 0.1, jitterMs: 2)
        var joined = JoinResponse(sessionId: "SE_1", resumed: false, channel: channel, me: user, users: [user], reconnectGraceSeconds: 20,
                                  serverTime: 1, subscriptions: [SubscribeRequest(trackId: "TR_1", layer: "camera_small")],
                                  iceServers: [ICEServer(urls: ["turn:turn.example.com:3478"], username: "1:bob", credential: "c")])
        joined.moved = true
        joined.sealKey = "Qp4_dbXwO9iuEDv-oaGSEwVMvmzKCX21ZStyuyyG6P8"
        let events: [ServerEvent] = [
            .userJoined(user), .userLeft(UserLeft(uid: "bob", reason: .kicked)), .trackAdded(TrackEvent(uid: "bob", track: track)),
            .subscriberOffer(SessionDescriptionMessage(sdp: "v=0", revision: 1)),
            .message(CustomMessage(from: "bob", to: ["alice"], data: "hi", timestamp: 1)), .channelUpdated(channel),
            .qualityReport(QualityReport(uid: "bob", timestamp: 1, upstream: link, downstream: link, rttMs: 20, availableBitrateBps: 1, quality: .good)),
            .connectionQuality(ConnectionQualityChange(uid: "bob", quality: .good, previous: .poor)),
            .activeSpeakers(ActiveSpeakersSnapshot(speakers: [ActiveSpeaker(uid: "bob", trackId: "TR_2", level: 0.5)])),
            .layerSwitched(LayerSwitchedInfo(uid: "bob", trackId: "TR_1", layer: "camera_small", previous: "camera_big", cause: "bandwidth")),
            .subscriptionEnded(SubscriptionEnded(trackId: "TR_1", reason: "track_removed")),
            .disconnected(Disconnected(reason: .kicked, message: "bye")), .reconnect(ReconnectNotice(reason: "node_draining")),
        ]
        let responses: [ResponseData] = [.joined(joined), .answer(PublishResponse(sdp: "v=0", tracks: [track])), .pong(PongResponse(serverTime: 1))]
        let requests: [ClientRequest.Body] = [
            .join(JoinRequest(token: "t", sessionId: "SE_1", nickname: "A", custom: "{}", sdk: "x", dataChannel: true)),
            .publish(PublishRequest(sdp: "v=0", tracks: [PublishTrack(mid: "0", kind: .video, desc: "camera_big", layers: [layer])])),
            .unpublish(UnpublishRequest(trackId: "TR_1", sdp: "v=0")), .subscribe(SubscribeRequest(trackId: "TR_1", layer: "camera_small")),
            .subscriberAnswer(SessionDescriptionMessage(sdp: "v=0", revision: 1)), .mute(MuteRequest(trackId: "TR_1", muted: true)),
            .sendMessage(SendMessageRequest(to: ["bob"], data: "hi")), .updateProfile(ProfileUpdate(nickname: "A", custom: "{}")),
            .restartICE(RestartICERequest(transport: .publish, sdp: "v=0")),
        ]
        let texts = events.map { SignalCodec.encode(.event($0)) }
            + responses.map { SignalCodec.encode(.response(id: 1, Response(type: "join", result: .success($0)))) }
            + [SignalCodec.encode(.response(id: 1, Response(type: "ping", result: .failure(SignalError(.notFound, "x")))))]
            + requests.map { SignalCodec.encode(ClientRequest(id: 1, $0)) }
        #expect(Self.keys(texts[0]).count > 3, "the messages were not read")
        #expect(Self.undocumented(texts, in: DocText.read("docs/protocol.md")) == [])
    }

    @Test func meetingKeysAreInMeetingDoc() {
        let me = MeetingUserInfo(uid: "bob", nickname: "Bob", role: .member, trackDescs: [.mic], enteredAt: 1, subMeetingId: "S1")
        let room = RoomInfo(meetingId: "MT", roomNo: "123456789", title: "T", hostUid: "alice", type: .instant, mode: .normal,
                            attendType: .open, status: .ongoing, sharingUid: "bob", shareType: 1, startedAt: 1, memberCount: 2)
        let rtc = RTCGrant(channel: "mt_MT", token: "t", expireAt: 1)
        let sub = SubMeetingInfo(subMeetingId: "S1", title: "A", status: .closing, members: ["bob"], closesAt: 1)
        let waiting = WaitingUserInfo(uid: "carol", nickname: "Carol", since: 1)
        let meeting = MeetingInfo(meetingId: "MT", roomNo: "123456789", title: "T", type: .appointment, mode: .normal, attendType: .password,
                                  password: "p", conferee: ["bob"], hostUid: "alice", status: .ended, planTime: 1, planDur: 30,
                                  createdAt: 1, updatedAt: 1, startedAt: 1, endedAt: 2, waitingRoom: true)
        let info = SignInInfo(signInId: "SI", kind: .rollCall, startedBy: "alice", startedAt: 1, deadline: 2, targetUid: "bob")
        let result = SignInResult(signIn: info, endedAt: 2, records: [SignInRecord(uid: "bob", nickname: "Bob", signedAt: 1)])
        let chat = ChatMessage(messageId: "M", from: "bob", fromNickname: "Bob", to: "alice", text: "hi", timestamp: 1)
        let update = MeetingUpdateReq(title: "T", mode: .voice, attendType: .open, password: "p", conferee: ["bob"], planTime: 1, planDur: 1, waitingRoom: true)
        let payloads: [any Encodable & Sendable] = [
            LoginReq(token: "t", sessionId: "MS", lastSeq: 1), LoginResp(uid: "bob", nickname: "Bob", serverTime: 1, sessionId: "MS", rejoin: true, reconnectGraceSeconds: 20),
            MeetingCreateReq(title: "T", type: .appointment, password: "p", conferee: ["bob"], planTime: 1, planDur: 1, waitingRoom: true),
            UpdateRoomReq(meetingId: "MT", update: update), MeetingRef(meetingId: "MT", roomNo: "123456789"), PageReq(page: 1, pageSize: 20),
            MeetingPage(list: [meeting], page: 1, pageSize: 20, total: 1),
            MeetingEnterReq(meetingId: "MT", roomNo: "1", password: "p", nickname: "B"),
            EnterRoomResp(room: room, me: me, users: [me], rtc: rtc, waiting: false, waitingUsers: [waiting], subMeetings: [sub]),
            OpenReq(byAdmin: true, adminUid: "alice"), ShareReq(shareType: .screen, byAdmin: true, adminUid: "alice"), ChatReq(text: "hi", to: "bob"),
            PolicyReq(allow: true), TargetReq(uid: "bob", enable: true), PongResp(serverTime: 1),
            UserExitedEvent(user: me, reason: .kicked), UserChangedEvent(user: me, fields: ["mic_state"], by: "alice"),
            RoomChangedEvent(room: room, fields: ["locked"], by: "alice"), ChatEvent(message: chat), AdminRequestEvent(kind: .mic, adminUid: "alice"),
            ByEvent(by: "alice"), DisconnectedEvent(reason: "duplicate_login", message: "m"),
            WaitingEnteredEvent(user: waiting), WaitingLeftEvent(user: waiting, reason: .admitted, by: "alice"), WaitingListEvent(users: [waiting]),
            CreateSubMeetingsReq(titles: ["A"]), AssignSubMeetingReq(subMeetingId: "S1", uids: ["bob"]), VisitSubMeetingReq(subMeetingId: "S1"),
            CloseSubMeetingsReq(countdown: 10), BroadcastReq(text: "hi"), SubMeetingsEvent(subMeetings: [sub]),
            SubMeetingMovedEvent(subMeeting: sub, rtc: rtc), SubMeetingHelpEvent(uid: "bob", subMeetingId: "S1"),
            SubMeetingsClosingEvent(countdown: 10, closesAt: 1),
            StartSignInReq(duration: 60), RollCallReq(uid: "bob", timeout: 30), SignInReq(signInId: "SI"), SignInStartedEvent(signIn: info),
            SignInProgressEvent(signInId: "SI", uid: "bob", signed: 1, total: 2), SignInEndedEvent(result: result),
            SignInResultsReq(meetingId: "MT"), SignInResultsResp(meetingId: "MT", results: [result]), MeetingErrorBody(.notFound, "x"),
        ]
        let texts = payloads.map { MeetingCodec.encode($0) } + [MeetingCodec.sequenced(MeetingCodec.event(.chat, ChatEvent(message: chat)), seq: 1)]
        #expect(Self.undocumented(texts, in: DocText.read("docs/meeting-protocol.md")) == [])
        // The reminder's data, as IM delivers it.
        let reminder = MeetingReminder(meetingId: "MT", roomNo: "1", title: "T", hostUid: "alice", planTime: 1, planDur: 30)
        #expect(Self.undocumented([MeetingCodec.encode(reminder)], in: DocText.read("docs/im.md").replacingOccurrences(of: "\\\"", with: "\"")) == [])
    }

    @Test func imKeysAreInIMDoc() {
        var login = IMLoginResponse(uid: "b", sessionId: "IS", resumeFrom: 1, lastSeq: 2, serverTime: 1, maxContentBytes: 4096)
        login.sealKey = "Qp4_dbXwO9iuEDv-oaGSEwVMvmzKCX21ZStyuyyG6P8"
        let payloads: [any Encodable & Sendable] = [
            IMMessage(seq: 1, msgId: "MS", kind: .callInvite, from: "a", to: "b", title: "t", content: "c", data: "d", callId: "CA", channel: "c", sentAt: 1),
            IMLoginRequest(token: "t", lastSeq: 1, sdk: "x"),
            login,
            IMSendRequest(to: "b", content: "c"), IMSendResponse(msgId: "MS", sentAt: 1), IMAckRequest(seq: 1),
            IMInviteRequest(to: "b", channel: "c", content: "video", timeoutSeconds: 30), IMInviteResponse(callId: "CA", expiresAt: 1),
            IMCallRequest(callId: "CA", content: "busy"), IMPong(serverTime: 1),
        ]
        let texts = payloads.map { JSONEnvelope.encode($0) }
        #expect(Self.keys(texts[0]).count == 11)
        #expect(Self.undocumented(texts, in: DocText.read("docs/im.md")) == [])
    }
}
