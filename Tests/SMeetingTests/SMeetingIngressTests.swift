import EgressServer
import Foundation
import MeetingServer
import Processes
import RTCMedia
import SMeeting
import SRTC
import SRTCTestSupport
import TestWait
import Testing

/// An RTMP ingress in a meeting's sub-meeting (docs/meeting-protocol.md, "Ingress"), end to end
/// with Debian's ffmpeg as the encoder: the host makes it for a breakout, a Swift SMeeting member
/// there sees its uid in the channel and decodes its video's frame numbers in order, the host in
/// the main meeting does not get it, and mute all holds its sound (packets counted at the member)
/// until it is lifted.
@Suite(.serialized) struct SMeetingIngressTests {
    /// ffmpeg pushing a numbered pattern (H.264 Main without B-frames: passed through) and a tone
    /// to `url` as FLV; nil when it could not start.
    static func push(_ pattern: String, to url: String) -> ChildProcess? {
        try? ChildProcess("/usr/bin/ffmpeg", ["-hide_banner", "-loglevel", "error", "-nostdin", "-re", "-stream_loop", "-1", "-i", pattern,
                            "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-map", "0:v", "-map", "1:a",
                            "-c:v", "libx264", "-preset", "veryfast", "-profile:v", "main", "-bf", "0", "-tune", "zerolatency",
                            "-g", "15", "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "96k", "-f", "flv", url])
    }

    @Test func aSubMeetingMemberDecodesTheIngressAndMuteAllHoldsItsSound() async throws {
        let server = try TestServer(modules: [MeetingModule.factory, EgressModule.factory]) { $0.egress.maxTasks = 4 }
        let directory = NSTemporaryDirectory() + "srtc-meeting-ingress-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let pattern = directory + "/pattern.y4m"
        let writer = try Y4MWriter(path: pattern, width: 320, height: 240, frameRate: 15)
        let generator = try TestPatternGenerator(width: 320, height: 240, frameRate: 15)
        for n in 0..<300 { try writer.write(generator.videoFrame(number: n)) }
        try writer.close()

        let host = try await TestMember(server: server, uid: "host")
        let bob = try await TestMember(server: server, uid: "bob")
        let meeting = try await host.host(MeetingCreateReq(title: "ingress"))
        try await bob.engine.enterRoom(MeetingEnterReq(meetingId: meeting.meetingId))
        _ = try await host.engine.adminCreateSubMeetings(titles: ["Breakout"])
        _ = try await host.engine.adminAssignSubMeeting(subMeetingId: "S1", uids: ["bob"])
        _ = try await host.engine.adminOpenSubMeetings()
        try await bob.events.wait(for: "moved S1")

        await #expect(throws: SMeetingError.apiError(code: 40401, message: "no sub-meeting S9")) {
            _ = try await host.engine.adminCreateIngress(nickname: "OBS", subMeetingId: "S9")
        }
        let made = try await host.engine.adminCreateIngress(nickname: "OBS", subMeetingId: "S1")
        let uid = made.ingress.uid
        #expect(made.ingress.subMeetingId == "S1" && made.url.hasPrefix("rtmp://"))
        try await eventually("bob sees the ingress in the room") { bob.engine.getRoomInfo()?.ingresses?.map(\.uid) == [uid] }

        // The listener takes one connection at a time and may not listen yet: push until taken.
        var pusher: ChildProcess?
        defer { pusher?.signal(SIGTERM) }
        try await eventually(timeout: 60, "the ingress publishes its camera in S1") {
            if bob.channel?.remoteTrack(uid: uid, desc: "camera_big") != nil { return true }
            if pusher?.isRunning != true { pusher = Self.push(pattern, to: made.url) }
            return false
        }
        let view = MeetingMediaCollector()
        _ = try await bob.engine.startPlayRemoteVideo(view: view, uid: uid, trackDesc: .cameraBig)
        try await eventually(timeout: 30, "bob decodes the ingress; \(view.numbers.count) frames") { view.numbers.count > 30 }
        let numbers = view.numbers
        #expect(numbers == numbers.sorted(), "frame numbers in order: \(numbers)")
        let track = bob.channel?.remoteTrack(uid: uid, desc: "camera_big")?.info
        print("meeting ingress: bob decoded \(numbers.count) frames \(numbers.first ?? -1)…\(numbers.last ?? -1) of \(track?.codec ?? "?") \(track?.profileLevelID ?? "")")
        // The main meeting's channel does not carry it.
        let inMain = host.channel?.users.map(\.uid) ?? []
        #expect(!inMain.contains(uid), "the main meeting's channel has \(inMain)")

        // Mute all holds its sound at the SFU; lifting it releases the sound.
        let sound = PacketCounter(at: bob, from: uid, kind: .audio)
        try await sound.waitForMore(20, "bob hears the ingress")
        _ = try await host.engine.adminMuteAll()
        try await sound.expectSilence("the ingress after mute all")
        _ = try await host.engine.adminUnmuteAll()
        try await sound.waitForMore(20, "the ingress heard again after unmute all")

        await pusher?.stop()
        try await host.engine.adminDeleteIngress(ingressId: made.ingress.ingressId)
        try await eventually("the ingress is gone from the room") { bob.engine.getRoomInfo()?.ingresses == nil }
        await server.stop()
    }
}
