import Foundation
import SMeeting
import SRTC
import SRTCTestSupport
import TestWait
import Testing

/// Sub-meetings end to end: members assigned and moved, each hearing only its sub-meeting, a
/// broadcast, a call for help, a host's visit, and the close with its countdown that brings
/// everyone back to the main meeting with media flowing again. Audio is counted in packets.
@Suite(.serialized) struct SMeetingSubMeetingTests {
    @Test func membersHearOnlyTheirSubMeetingUntilTheCountdownBringsThemBack() async throws {
        let server = try TestServer.withMeetings()
        let host = try await TestMember(server: server, uid: "host")
        let a = try await TestMember(server: server, uid: "a")
        let b = try await TestMember(server: server, uid: "b")
        let c = try await TestMember(server: server, uid: "c")
        let meeting = try await host.host(MeetingCreateReq(title: "breakout"))
        for m in [a, b, c] { try await m.engine.enterRoom(MeetingEnterReq(meetingId: meeting.meetingId)) }
        let pushers = try [a, b, c].map { try MeetingMediaPusher(engine: $0.engine, width: 64, height: 64) }
        defer { for p in pushers { p.stop() } }

        // Two sub-meetings: a and b by hand into the first, c at random into the emptier second.
        let created = try await host.engine.adminCreateSubMeetings(titles: ["Team A", "Team B"])
        #expect(created.map(\.subMeetingId) == ["S1", "S2"] && created.allSatisfy { $0.mode == .subMeeting && $0.status == .created })
        try await host.engine.adminAssignSubMeeting(subMeetingId: "S1", uids: ["a", "b"])
        let assigned = try await host.engine.adminAssignSubMeetingsRandomly()
        #expect(assigned.map(\.members) == [["a", "b"], ["c"]])
        await #expect(throws: SMeetingError.apiError(code: 40401, message: "no sub-meeting S9")) {
            try await host.engine.adminAssignSubMeeting(subMeetingId: "S9", uids: ["a"])
        }
        try await eventually("everyone sees the list") { a.engine.getSubMeetings() == assigned }

        try await host.engine.adminOpenSubMeetings()
        for (m, sub) in [(a, "S1"), (b, "S1"), (c, "S2")] {
            try await m.events.wait(for: "moved \(sub)")
            #expect(m.engine.currentSubMeetingId == sub && m.channel?.channelId == "mt_\(meeting.meetingId).\(sub)")
            try await m.engine.requestOpenMic()
        }
        #expect(host.engine.getUsersInfo()["c"]?.subMeetingId == "S2" && host.engine.currentSubMeetingId == nil)

        // a hears b and nobody else; c hears nobody; the host in the main meeting hears none of them.
        let aFromB = PacketCounter(at: a, from: "b", kind: .audio)
        let aFromC = PacketCounter(at: a, from: "c", kind: .audio)
        let cFromA = PacketCounter(at: c, from: "a", kind: .audio)
        let hostFromA = PacketCounter(at: host, from: "a", kind: .audio)
        try await aFromB.waitForMore(50, "a hears b")
        #expect(aFromC.total == 0 && cFromA.total == 0 && hostFromA.total == 0)
        #expect(Set(a.channel?.users.map(\.uid) ?? []) == ["b"] && (c.channel?.users.isEmpty ?? false))

        // A broadcast reaches every sub-meeting; a call for help reaches the host.
        try await host.engine.adminBroadcastToSubMeetings("five minutes left")
        for m in [a, b, c] { try await m.events.wait(for: "broadcast host: five minutes left") }
        try await c.engine.requestSubMeetingHelp()
        try await host.events.wait(for: "help c S2")
        await #expect(throws: SMeetingError.apiError(code: 40901, message: "not in a sub-meeting")) { try await host.engine.requestSubMeetingHelp() }

        // The host visits c's sub-meeting and hears c there, then goes back.
        let hostFromC = PacketCounter(at: host, from: "c", kind: .audio)
        try await host.engine.adminVisitSubMeeting(subMeetingId: "S2")
        try await hostFromC.waitForMore(20, "the host hears c in S2")
        try await host.engine.adminVisitSubMeeting(subMeetingId: nil)
        #expect(host.engine.currentSubMeetingId == nil)

        // Closing with a countdown: everyone is back in the main meeting, and hears everyone again.
        try await host.engine.adminCloseSubMeetings(countdown: 1)
        for m in [a, b, c] {
            try await m.events.wait(for: "closing 1")
            try await m.events.wait(for: "moved main")
            try await m.events.wait(for: "sub-meetings closed")
            #expect(m.engine.currentSubMeetingId == nil && m.engine.getSubMeetings().isEmpty)
            try await m.engine.requestOpenMic()
        }
        try await hostFromA.waitForMore(20, "the host hears a in the main meeting")
        try await aFromC.waitForMore(20, "a hears c in the main meeting")
        #expect(Set(host.channel?.users.map(\.uid) ?? []) == ["a", "b", "c"])
        await server.stop()
    }
}
