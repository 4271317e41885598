import SMeetingProtocol
import SRTCTestSupport
import Testing

/// A real server with the meeting module on loopback (`TestServer.withMeetings`).
func makeMeetingServer(grace: Int = 20) throws -> TestServer {
    try TestServer.withMeetings(grace: grace)
}

/// Logged-in sockets for `uids`; the first creates a meeting with `req` and enters it, and with
/// `everyone` the others enter too.
func hostedMeeting(_ uids: [String], _ req: MeetingCreateReq, on server: TestServer, everyone: Bool = false) async throws
    -> (MeetingInfo, [MeetingTestSocket]) {
    var sockets: [MeetingTestSocket] = []
    for uid in uids {
        let s = try await MeetingTestSocket(url: server.meetingURL)
        try await s.login(server.memberToken(uid: uid))
        sockets.append(s)
    }
    let m = try sockets[0].data(MeetingInfo.self, try await sockets[0].call(.createRoom, req).text)
    for s in everyone ? sockets : [sockets[0]] { #expect(try await s.call(.enterRoom, MeetingEnterReq(meetingId: m.meetingId)).ok) }
    return (m, sockets)
}
