import Foundation
import MeetingServer
import RTCNet
import SMeetingProtocol
import SRTCProtocol
import SRTCTestSupport
import Testing

/// The signed `/server/v1/meeting/…` routes against a real server.
@Suite struct MeetingAPITests {
    @Test func createInfoListUpdateEndAndAttendance() async throws {
        let server = try makeMeetingServer()
        let (status, created) = try await server.call("/server/v1/meeting/create", [
            "host_uid": "alice", "title": "Board", "attend_type": "password", "password": "s3cret"])
        #expect(status == 200)
        let meetingId = try #require(created["meeting_id"] as? String)
        let roomNo = try #require(created["room_no"] as? String)
        #expect(created["status"] as? String == "scheduled" && created["type"] as? String == "instant" && created["mode"] as? String == "normal")
        #expect(created["password"] as? String == "s3cret" && created["host_uid"] as? String == "alice")

        let (s2, info) = try await server.call("/server/v1/meeting/info", ["room_no": roomNo])
        #expect(s2 == 200 && (info["meeting"] as? [String: Any])?["meeting_id"] as? String == meetingId)
        #expect((info["members"] as? [Any])?.isEmpty == true)

        let (s3, updated) = try await server.call("/server/v1/meeting/update", ["meeting_id": meetingId, "title": "Board 2"])
        #expect(s3 == 200 && updated["title"] as? String == "Board 2")

        // A member enters over the meeting WebSocket; the backend sees it, then ends the meeting.
        let socket = try await MeetingTestSocket(url: server.meetingURL)
        try await socket.login(server.memberToken(uid: "alice"))
        #expect(try await socket.call(.enterRoom, MeetingEnterReq(roomNo: roomNo)).ok)
        let (_, live) = try await server.call("/server/v1/meeting/info", ["meeting_id": meetingId])
        #expect((live["members"] as? [[String: Any]])?.map { $0["uid"] as? String } == ["alice"])
        #expect((live["meeting"] as? [String: Any])?["status"] as? String == "ongoing")

        let (s4, ended) = try await server.call("/server/v1/meeting/end", ["meeting_id": meetingId])
        #expect(s4 == 200 && ended["status"] as? String == "ended")
        try await socket.waitEvent(.roomEnded)
        let (s5, again) = try await server.call("/server/v1/meeting/end", ["meeting_id": meetingId])
        #expect(s5 == 409 && again["code"] as? Int == 40901)

        let (s6, list) = try await server.call("/server/v1/meeting/list", ["status": "ended"])
        #expect(s6 == 200 && (list["list"] as? [[String: Any]])?.map { $0["meeting_id"] as? String } == [meetingId] && list["total"] as? Int == 1)

        let (s7, attendance) = try await server.call("/server/v1/meeting/attendance", ["meeting_id": meetingId])
        let records = try #require(attendance["records"] as? [[String: Any]])
        #expect(s7 == 200 && records.count == 1)
        #expect(records.first?["uid"] as? String == "alice" && records.first?["role"] as? String == "host" && records.first?["exit_reason"] as? String == "ended")
        socket.close()
        await server.stop()
    }

    @Test func everyRejectionIsAnsweredWithItsCode() async throws {
        let server = try makeMeetingServer()
        // Unsigned: the signature check comes first.
        let unsigned = try await HTTPClient().post(server.httpBase + "/server/v1/meeting/create", body: Array("{}".utf8))
        #expect(unsigned.status == 401)
        #expect(String(decoding: unsigned.body, as: UTF8.self).contains("40101"))

        let cases: [(String, [String: Any], Int, Int)] = [
            ("/server/v1/meeting/create", ["title": "x"], 400, 40001),                               // host_uid missing
            ("/server/v1/meeting/create", ["host_uid": "a", "title": 5], 400, 40001),                // wrong type
            ("/server/v1/meeting/create", ["host_uid": "a b", "title": "x"], 400, 40002),            // invalid uid
            ("/server/v1/meeting/create", ["host_uid": "a", "title": ""], 400, 40002),               // empty title
            ("/server/v1/meeting/create", ["host_uid": "a", "title": "x", "type": "appointment"], 400, 40002),
            ("/server/v1/meeting/create", ["host_uid": "a", "title": "x", "mode": "party"], 400, 40001), // unknown enum value
            ("/server/v1/meeting/info", ["meeting_id": "MTnope"], 404, 40401),
            ("/server/v1/meeting/info", ["room_no": "12"], 400, 40002),
            ("/server/v1/meeting/info", [:], 400, 40001),
            ("/server/v1/meeting/list", ["page": 0], 400, 40002),
            ("/server/v1/meeting/cancel", ["meeting_id": "MTnope"], 404, 40401),
            ("/server/v1/meeting/nothing", [:], 404, 40401),
        ]
        for (path, body, status, code) in cases {
            let (s, answer) = try await server.call(path, body)
            #expect(s == status && answer["code"] as? Int == code, "\(path) \(body): \(s) \(answer)")
            #expect(answer["server_time"] is Int)
        }
        let (_, created) = try await server.call("/server/v1/meeting/create", ["host_uid": "a", "title": "x"])
        let id = try #require(created["meeting_id"] as? String)
        #expect(try await server.call("/server/v1/meeting/cancel", ["meeting_id": id]).0 == 200)
        let (s, answer) = try await server.call("/server/v1/meeting/cancel", ["meeting_id": id])
        #expect(s == 409 && answer["code"] as? Int == 40901)
        let (sk, kick) = try await server.call("/server/v1/meeting/kick", ["meeting_id": id, "uid": "zed"])
        #expect(sk == 404 && kick["code"] as? Int == 40401)
        await server.stop()
    }
}
