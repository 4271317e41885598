import EgressServer
import Foundation
import MeetingServer
import SMeeting
import SMeetingProtocol
import SRTCTestSupport
import Testing

/// A meeting host turns live captions on and off (`startCaptions` / `stopCaptions`,
/// docs/captions.md); the server runs them in the meeting's channel. Heavy (its name matches the
/// Makefile's `AgentTests`): a caption worker process starts.
@Suite(.serialized) struct SMeetingCaptionAgentTests {
    @Test func theHostTurnsCaptionsOnAndOffAndAMemberMayNot() async throws {
        let server = try TestServer(modules: [MeetingModule.factory, EgressModule.factory])
        let host = try await TestMember(server: server, uid: "host")
        let member = try await TestMember(server: server, uid: "member")
        let meeting = try await host.engine.createRoom(MeetingCreateReq(title: "Captioned"))
        try await host.engine.enterRoom(MeetingEnterReq(meetingId: meeting.meetingId))
        try await member.engine.enterRoom(MeetingEnterReq(meetingId: meeting.meetingId))
        let channel = "mt_" + meeting.meetingId
        func running() async throws -> [String: Any]? {
            let (status, json) = try await server.call("/server/v1/channel/captions/list", ["channel": channel])
            #expect(status == 200, "\(json)")
            return json["running"] as? [String: Any]
        }

        await #expect(throws: SMeetingError.unauthorized) { try await member.engine.startCaptions() }
        #expect(try await running() == nil)
        try await host.engine.startCaptions()
        let started = try await running()
        #expect(started?["language"] as? String == "en-US" && ["running", "starting"].contains(started?["status"] as? String ?? ""), "\(started ?? [:])")
        await #expect(throws: SMeetingError.apiError(code: 40901, message: "captions are already running in channel \(channel)")) {
            try await host.engine.startCaptions()
        }
        await #expect(throws: SMeetingError.unauthorized) { try await member.engine.stopCaptions() }
        try await host.engine.stopCaptions()
        #expect(try await running() == nil)
        await #expect(throws: SMeetingError.apiError(code: 40901, message: "captions are not running in channel \(channel)")) {
            try await host.engine.stopCaptions()
        }
        await #expect(throws: SMeetingError.apiError(code: 40002, message: "language xx is not supported (supported: en-US)")) {
            try await host.engine.startCaptions(language: "xx")
        }
        await member.engine.exitRoom()
        await host.engine.exitRoom()
        await server.stop()
    }
}
