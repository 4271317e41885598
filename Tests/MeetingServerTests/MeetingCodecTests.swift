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
        }
    }
}
