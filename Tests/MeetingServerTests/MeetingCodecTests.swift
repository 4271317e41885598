import Foundation
import SMeetingProtocol
import TestRandom
import Testing

/// The meeting protocol's JSON, byte for byte (docs/meeting-protocol.md).
@Suite struct MeetingCodecTests {
    @Test func requestsAreSnakeCaseWithSortedKeys() {
        #expect(MeetingCodec.request(id: 3, type: .requestOpenMic, OpenReq(byAdmin: true, adminUid: "host"))
            == #"{"data":{"admin_uid":"host","by_admin":true},"id":3,"type":"request_open_mic"}"#)
        #expect(MeetingCodec.request(id: 1, type: .enterRoom, MeetingEnterReq(roomNo: "123456789", password: "pw"))
            == #"{"data":{"password":"pw","room_no":"123456789"},"id":1,"type":"enter_room"}"#)
        #expect(MeetingCodec.failure(id: 9, type: "send_chat", MeetingErrorBody(.policyForbidden, "chat is disabled for you"))
            == #"{"error":{"code":40311,"message":"chat is disabled for you"},"id":9,"ok":false,"type":"send_chat"}"#)
        #expect(MeetingCodec.event(.adminRequest, AdminRequestEvent(kind: .camera, adminUid: "host"))
            == #"{"data":{"admin_uid":"host","kind":"camera"},"type":"admin_request"}"#)
    }

    @Test func everyStateRoundTrips() throws {
        let user = MeetingUserInfo(uid: "bob", nickname: "Bob", role: .coHost, micState: .on, cameraState: .on, shareState: 2,
                                   chatDisabled: true, handRaised: true, trackDescs: [.mic, .cameraBig, .cameraSmall], enteredAt: 1_767_225_600_123)
        let text = MeetingCodec.event(.userChanged, UserChangedEvent(user: user, fields: ["role"], by: "host"))
        #expect(text.contains(#""role":"co_host""#) && text.contains(#""track_descs":["mic","camera_big","camera_small"]"#))
        let back = try MeetingCodec.payload(UserChangedEvent.self, from: text)
        #expect(back.user == user && back.fields == ["role"] && back.by == "host")
        let room = RoomInfo(meetingId: "MT1", roomNo: "100000001", title: "t", hostUid: "h", type: .appointment, mode: .subMeeting,
                            attendType: .invitation, status: .ongoing, muteAll: true, allowSelfUnmute: false, sharingUid: "bob",
                            shareType: 1, startedAt: 5, memberCount: 2)
        #expect(try MeetingCodec.payload(RoomInfo.self, from: #"{"data":"# + MeetingCodec.encode(room) + "}") == room)
    }

    @Test func eventsAreNumberedPerSessionWithoutDecodingThem() throws {
        let event = MeetingCodec.event(.chat, ChatEvent(message: ChatMessage(messageId: "CM1", from: "a", fromNickname: "A", to: nil, text: "hi", timestamp: 5)))
        let numbered = MeetingCodec.sequenced(event, seq: 42)
        #expect(numbered == #"{"seq":42,"data":{"message":{"from":"a","from_nickname":"A","message_id":"CM1","text":"hi","timestamp":5}},"type":"chat"}"#)
        #expect(try MeetingCodec.head(of: numbered).seq == 42 && MeetingCodec.head(of: numbered).type == "chat")
        #expect(MeetingCodec.sequenced("{ }", seq: 1) == #"{"seq":1}"#)
        #expect(MeetingCodec.sequenced("[1]", seq: 1) == "[1]")
    }

    @Test func createRoomDefaultsAndTheNewPayloads() throws {
        let bare = try MeetingCodec.payload(MeetingCreateReq.self, from: #"{"data":{"title":"t"}}"#)
        #expect(bare == MeetingCreateReq(title: "t") && bare.type == .instant && bare.mode == .normal && bare.attendType == .open && !bare.waitingRoom)
        #expect(throws: MeetingErrorBody(.malformedBody, "field mode has an invalid value")) {
            try MeetingCodec.payload(MeetingCreateReq.self, from: #"{"data":{"title":"t","mode":"party"}}"#)
        }
        #expect(MeetingCodec.request(id: 2, type: .adminAssignSubMeeting, AssignSubMeetingReq(subMeetingId: "S1", uids: ["a"]))
            == #"{"data":{"sub_meeting_id":"S1","uids":["a"]},"id":2,"type":"admin_assign_sub_meeting"}"#)
        #expect(MeetingCodec.request(id: 3, type: .login, LoginReq(token: "t", sessionId: "MS1", lastSeq: 9))
            == #"{"data":{"last_seq":9,"session_id":"MS1","token":"t"},"id":3,"type":"login"}"#)
        let sub = SubMeetingInfo(subMeetingId: "S1", title: "A", status: .closing, members: ["a"], closesAt: 7)
        #expect(MeetingCodec.encode(sub) == #"{"closes_at":7,"members":["a"],"mode":"sub_meeting","status":"closing","sub_meeting_id":"S1","title":"A"}"#)
        let result = SignInResult(signIn: SignInInfo(signInId: "SI1", kind: .rollCall, startedBy: "h", startedAt: 1, deadline: 2, targetUid: "a"),
                                  endedAt: 3, records: [SignInRecord(uid: "a", nickname: "A", signedAt: nil)])
        #expect(try MeetingCodec.payload(SignInEndedEvent.self, from: MeetingCodec.event(.rollCallResult, SignInEndedEvent(result: result))).result == result)
        let waiting = EnterRoomResp(room: RoomInfo(meetingId: "M", roomNo: "100000000", title: "t", hostUid: "h", type: .instant, mode: .normal,
                                                   attendType: .open, status: .ongoing, startedAt: 1, waitingRoom: true),
                                    me: MeetingUserInfo(uid: "w", nickname: "W", role: .member, enteredAt: 2), users: [], rtc: nil, waiting: true)
        let text = MeetingCodec.success(id: 1, type: "enter_room", waiting)
        #expect(!text.contains("\"rtc\"") && text.contains(#""waiting":true"#))
        #expect(try MeetingCodec.payload(EnterRoomResp.self, from: text) == waiting)
    }

    @Test func badInputNamesTheProblem() {
        #expect(throws: MeetingErrorBody(.malformedBody, "message is not a JSON object with id and type")) { try MeetingCodec.head(of: "[1,2]") }
        #expect(throws: MeetingErrorBody(.payloadTooLarge, "message exceeds 65536 bytes")) {
            try MeetingCodec.head(of: String(repeating: " ", count: 65_537))
        }
        #expect(throws: MeetingErrorBody(.malformedBody, "missing field token")) { try MeetingCodec.payload(LoginReq.self, from: #"{"data":{}}"#) }
        #expect(throws: MeetingErrorBody(.malformedBody, "field page has the wrong type")) {
            try MeetingCodec.payload(PageReq.self, from: #"{"data":{"page":"one"}}"#)
        }
        #expect(throws: MeetingErrorBody(.malformedBody, "field share_type has an invalid value")) {
            try MeetingCodec.payload(ShareReq.self, from: #"{"data":{"share_type":7}}"#)
        }
        // An absent data is an empty object: fine for requests without fields.
        #expect(throws: Never.self) { try MeetingCodec.payload(EmptyPayload.self, from: #"{"id":1,"type":"ping"}"#) }
    }

    @Test func seededRandomTextNeverCrashesTheDecoder() {
        var random = SeededRandom(seed: 0x5EED_C0DE)
        func next() -> UInt64 { random.next() }
        let alphabet = Array(#"{}[]":,0123456789abcdefghijklmnopqrstuvwxyz_ -.\"#.utf8)
        for _ in 0..<2_000 {
            let count = Int(next() % 120)
            let bytes = (0..<count).map { _ in alphabet[Int(next() % UInt64(alphabet.count))] }
            let text = String(decoding: bytes, as: UTF8.self)
            _ = try? MeetingCodec.head(of: text)
            _ = try? MeetingCodec.payload(MeetingCreateReq.self, from: text)
            _ = try? MeetingCodec.payload(AssignSubMeetingReq.self, from: text)
            _ = try? MeetingCodec.payload(RollCallReq.self, from: text)
            _ = try? MeetingCodec.payload(EnterRoomResp.self, from: text)
            _ = MeetingCodec.sequenced(text, seq: 1)
        }
    }
}
