@testable import SMeeting
import SMeetingProtocol

/// Values for `SMeetingRoomMachine`'s tests: one meeting `M1` hosted by `host`, me (`me`,
/// logged in as "Me"), another member `bob`, the channel grants of the main meeting and of
/// sub-meeting `S1`.
enum SMeetingRoomFixture {
    typealias Machine = SMeetingRoomMachine

    static let room = RoomInfo(meetingId: "M1", roomNo: "100", title: "Weekly", hostUid: "host", type: .instant, mode: .normal,
                               attendType: .open, status: .ongoing, startedAt: 1)
    static let waitingRoom = RoomInfo(meetingId: "M1", roomNo: "100", title: "Weekly", hostUid: "host", type: .instant, mode: .normal,
                                      attendType: .open, status: .ongoing, startedAt: 1, waitingRoom: true)
    static let mainGrant = RTCGrant(channel: "m1", token: "main", expireAt: 0)
    static let subGrant = RTCGrant(channel: "m1-s1", token: "sub", expireAt: 0)
    static let sub = SubMeetingInfo(subMeetingId: "S1", title: "Room A", status: .open, members: ["me"])

    static func user(_ uid: String, nickname: String? = nil, role: Role = .member, mic: MicState = .off, camera: CameraState = .off,
                     share: Int = 0, viewCapture: Bool = false, sub: String? = nil, at: Int64 = 1) -> MeetingUserInfo {
        MeetingUserInfo(uid: uid, nickname: nickname ?? uid.capitalized, role: role, micState: mic, cameraState: camera, shareState: share,
                        enteredAt: at, viewCapture: viewCapture, subMeetingId: sub)
    }

    static let host = user("host", role: .host)
    static let me = user("me", nickname: "Me in the room")
    static let bob = user("bob")

    /// `enter_room`'s answer: in the meeting with its channel, or waiting.
    static func answer(waiting: Bool = false, users: [MeetingUserInfo] = [host, me], rtc: RTCGrant? = mainGrant) -> EnterRoomResp {
        EnterRoomResp(room: waiting ? waitingRoom : room, me: me, users: waiting ? [] : users, rtc: waiting ? nil : rtc, waiting: waiting)
    }

    static func chat(_ text: String) -> ChatMessage {
        ChatMessage(messageId: text, from: "host", fromNickname: "Host", to: nil, text: text, timestamp: 1)
    }

    static let signIn = SignInInfo(signInId: "G1", kind: .signIn, startedBy: "host", startedAt: 1, deadline: 60)
    static let rollCall = SignInInfo(signInId: "R1", kind: .rollCall, startedBy: "host", startedAt: 2, deadline: 30, targetUid: "me")

    /// Logged in, not in a meeting.
    static func loggedIn() -> Machine {
        var machine = Machine()
        _ = machine.handle(.loggedIn(uid: "me", nickname: "Me"))
        return machine
    }

    /// Entered `answer`: in the meeting (its channel asked for) or its waiting room.
    static func entered(_ answer: EnterRoomResp = answer()) -> Machine {
        var machine = loggedIn()
        _ = machine.beginEntry()
        _ = machine.handle(.entryAnswered(answer))
        _ = machine.handle(.entryReturned(answer))
        return machine
    }

    /// Where a test starts.
    enum Start: String, Sendable, CaseIterable {
        case out, entering, waiting, room

        var machine: Machine {
            switch self {
            case .out: return SMeetingRoomFixture.loggedIn()
            case .entering:
                var machine = SMeetingRoomFixture.loggedIn()
                _ = machine.beginEntry()
                return machine
            case .waiting: return SMeetingRoomFixture.entered(SMeetingRoomFixture.answer(waiting: true))
            case .room: return SMeetingRoomFixture.entered()
            }
        }
    }
}
