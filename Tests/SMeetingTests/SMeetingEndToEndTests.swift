import Foundation
import SMeeting
import SRTC
import SRTCTestSupport
import TestWait
import Testing

/// The SMeeting SDK against a real server in-process: three engines, real media.
@Suite(.serialized) struct SMeetingEndToEndTests {
    static let width = 320, height = 180

    @Test func callsOutsideAMeetingThrowNotInMeeting() async throws {
        let server = try TestServer.withMeetings()
        let loggedOut = SMeetingEngine(url: server.httpBase, independent: .init(delegateQueue: DispatchQueue(label: "x")))
        await #expect(throws: SMeetingError.notLoggedIn) { try await loggedOut.createRoom(MeetingCreateReq(title: "t")) }
        let a = try await TestMember(server: server, uid: "alice")
        #expect(a.engine.currentUserId == "alice" && !a.engine.isInRoom && a.engine.getRoomInfo() == nil)
        await #expect(throws: SMeetingError.notInMeeting) { try await a.engine.requestOpenMic() }
        await #expect(throws: SMeetingError.notInMeeting) { try await a.engine.requestOpenCamera() }
        await #expect(throws: SMeetingError.notInMeeting) { try await a.engine.requestShare(shareType: .whiteBoard) }
        await #expect(throws: SMeetingError.notInMeeting) { try await a.engine.subscribeRemoteVideoTrack(uid: "b", trackDesc: .cameraBig) }
        await #expect(throws: SMeetingError.notInMeeting) { try await a.engine.adminMuteAll() }
        await #expect(throws: SMeetingError.notInMeeting) { try await a.engine.sendRoomChatMessage("hi") }
        await #expect(throws: SMeetingError.notInMeeting) { try await a.engine.raiseHand() }
        #expect(throws: SMeetingError.notInMeeting) { try a.engine.getUserInfo("alice") }
        await a.engine.closeMic()      // never throws
        await a.engine.exitRoom()      // nothing to exit
        await #expect(throws: SMeetingError.apiError(code: 40401, message: "no meeting with room number 123456789")) {
            try await a.engine.enterRoom(MeetingEnterReq(roomNo: "123456789"))
        }
        await a.engine.logout()
        #expect(!a.engine.isLoggedIn)
        await server.stop()
    }

    @Test func aWholeMeeting() async throws {
        let server = try TestServer.withMeetings()
        let host = try await TestMember(server: server, uid: "host", nickname: "Hana")
        let bob = try await TestMember(server: server, uid: "bob")
        let carol = try await TestMember(server: server, uid: "carol")

        // Before the meeting: create, list, enter by room number; then a password for latecomers.
        let created = try await host.engine.createRoom(MeetingCreateReq(title: "Design review"))
        #expect(created.roomNo.count == 9 && created.status == .scheduled && created.hostUid == "host")
        #expect(try await host.engine.attendeeRoom(page: 1).list.map(\.meetingId) == [created.meetingId])
        let room = try await host.engine.enterRoom(MeetingEnterReq(meetingId: created.meetingId))
        #expect(room.status == .ongoing && room.hostUid == "host" && host.engine.isInRoom)
        try await carol.engine.enterRoom(MeetingEnterReq(roomNo: created.roomNo))
        try await host.events.wait(for: "enter carol")
        let updated = try await host.engine.updateRoom(meetingId: created.meetingId, req: MeetingUpdateReq(attendType: .password, password: "2468"))
        #expect(updated.attendType == .password)
        await #expect(throws: SMeetingError.apiError(code: 40313, message: "wrong password")) {
            try await bob.engine.enterRoom(MeetingEnterReq(roomNo: created.roomNo, password: "1111"))
        }
        try await bob.engine.enterRoom(MeetingEnterReq(roomNo: created.roomNo, password: "2468"))
        try await host.events.wait(for: "enter bob")
        try await carol.events.wait(for: "enter bob")
        for m in [host, bob, carol] {
            #expect(m.engine.getUsersInfoList().map(\.uid) == ["host", "carol", "bob"])
            #expect(m.engine.getUsersInfo()["host"]?.role == .host && m.engine.getUsersInfo()["host"]?.nickname == "Hana")
            #expect(m.engine.srtc.getChannels().count == 1)
        }

        // Mute all without self-unmute: bob may not open his mic; then it is allowed again.
        try await host.engine.adminMuteAll(allowSelfUnmute: false)
        try await bob.events.wait(for: "room muteAll=true host=host")
        await #expect(throws: SMeetingError.unauthorized) { try await bob.engine.requestOpenMic() }
        await #expect(throws: SMeetingError.unauthorized) { try await bob.engine.adminUnmuteAll() }
        #expect(bob.engine.micTrack == nil)
        try await host.engine.adminUnmuteAll()
        try await bob.events.wait(for: "room muteAll=false host=host")
        try await bob.engine.requestOpenMic()
        try await host.events.wait(for: "mic bob on")
        #expect(bob.engine.micTrack?.isPublished == true)
        #expect(try host.engine.getUserInfo("bob").trackDescs == [.mic])

        // The host asks carol to open her camera; she confirms; she opens her mic too.
        try await host.engine.adminRequestOpenCamera(uid: "carol")
        try await carol.events.wait(for: "ask camera host")
        let preset = VideoPreset(width: Self.width, height: Self.height, frameRate: 30, maxBitrate: 500_000)
        let camera = try await carol.engine.requestOpenCamera(preset: preset, byAdmin: true, adminUid: "host")
        #expect(camera.desc == "camera_big" && camera.info?.layers.map(\.desc) == ["camera_big", "camera_small"])
        try await carol.engine.requestOpenMic()
        try await bob.events.wait(for: "camera carol on")
        try await bob.events.wait(for: "mic carol on")
        let pusher = try MeetingMediaPusher(engine: carol.engine, width: Self.width, height: Self.height)
        defer { pusher.stop() }

        // Bob watches carol's small layer (80x44: a quarter of each dimension, I420 sizes even), then the big one; audio was subscribed on its own.
        let screen = MeetingMediaCollector()
        bob.engine.addRemoteAudioRenderer(screen)
        let remote = try await bob.engine.startPlayRemoteVideo(view: screen, uid: "carol", trackDesc: .cameraSmall)
        try await eventually("small frames, got \(screen.sizes) subscribed=\(remote.isSubscribed) layer=\(String(describing: remote.currentLayer)) decoded=\(remote.framesDecoded) pushed=\(pusher.framesPushed)") { screen.count(width: Self.width / 4, height: Self.height / 4 & ~1) > 20 }
        // A second, big view of carol: the subscription carries the big layer, the small view gets
        // it scaled down to the small layer's size, so both views show their own layer at once.
        let bigView = MeetingMediaCollector()
        _ = try await bob.engine.startPlayRemoteVideo(view: bigView, uid: "carol", trackDesc: .cameraBig)
        try await eventually("big frames") { bigView.numbers(width: Self.width, height: Self.height).count > 30 }
        #expect(remote.requestedLayer == .cameraBig)
        let smallBefore = screen.count(width: Self.width / 4, height: Self.height / 4 & ~1)
        try await eventually("small frames while big ones arrive") { screen.count(width: Self.width / 4, height: Self.height / 4 & ~1) > smallBefore + 30 }
        // The big view shows the subscription's frames from the moment it is bound: small ones
        // until the server switches layers (at the big layer's next key frame), then only big ones.
        #expect(screen.count(width: Self.width, height: Self.height) == 0)
        #expect(bigView.count(width: Self.width / 4, height: Self.height / 4 & ~1, after: (Self.width, Self.height)) == 0)
        let numbers = bigView.numbers(width: Self.width, height: Self.height)
        #expect(zip(numbers, numbers.dropFirst()).allSatisfy { $0 < $1 }, "frame numbers out of order")
        #expect(numbers.count > 30 && (numbers.last ?? 0) < pusher.framesPushed)
        #expect((numbers.last ?? 0) - (numbers.first ?? 0) + 1 - numbers.count <= 3, "frames missing in \(numbers)")
        try await eventually("a second of the tone") { screen.sampleCount > 48_000 }
        let hz = try #require(screen.toneFrequency)
        #expect(abs(hz - 440) < 10, "tone heard at \(hz) Hz")
        // The speaker switch stops playback, not the subscription.
        bob.engine.toggleRemoteAudioMute(true)
        // Audio keeps arriving every 20 ms; muted, none of it is played: the count settles.
        try await waitUntilSettled("no audio played while muted") { screen.sampleCount }
        let muted = screen.sampleCount
        #expect(bob.engine.isRemoteAudioMuted)
        bob.engine.toggleRemoteAudioMute(false)
        try await eventually("audio again") { screen.sampleCount > muted }
        pusher.stop()

        // Whiteboard sharing announces a state and no media.
        try await bob.engine.requestShare(shareType: .whiteBoard)
        try await host.events.wait(for: "share+ bob 2")
        await #expect(throws: SMeetingError.internalError("already sharing")) { try await bob.engine.requestShare(shareType: .whiteBoard) }
        await bob.engine.stopShare()
        try await host.events.wait(for: "share- bob")

        // Chat: to everyone, privately, and refused once disabled for bob.
        let hello = try await host.engine.sendRoomChatMessage("hello all")
        #expect(hello.from == "host" && hello.to == nil && hello.fromNickname == "Hana")
        try await bob.events.wait(for: "chat host->all: hello all")
        try await carol.events.wait(for: "chat host->all: hello all")
        try await bob.engine.sendRoomChatMessage("psst", to: "carol")
        try await carol.events.wait(for: "chat bob->carol: psst")
        try await host.engine.adminDisableChat(uid: "bob")
        try await eventually("bob's chat disabled") { (try? bob.engine.getUserInfo("bob").chatDisabled) == true }
        await #expect(throws: SMeetingError.unauthorized) { try await bob.engine.sendRoomChatMessage("let me talk") }
        #expect(!host.events.lines.contains("chat bob->carol: psst"))

        // Raised hand, lowered by the host.
        try await carol.engine.raiseHand()
        try await host.events.wait(for: "hand carol true")
        try await host.engine.adminLowerHand(uid: "carol")
        try await carol.events.wait(for: "hand carol false")

        // The host removes bob: he is out of the meeting and of its SRTC channel.
        try await host.engine.adminKickOut(uid: "bob")
        try await bob.events.wait(for: "kicked host")
        try await bob.events.wait(for: "out kicked")
        try await carol.events.wait(for: "exit bob kicked")
        #expect(!bob.engine.isInRoom && bob.engine.getRoomInfo() == nil && bob.events.endsToldTooEarly.isEmpty)
        try await eventually("bob left the channel") { bob.engine.srtc.getChannels().isEmpty }
        await #expect(throws: SMeetingError.notInMeeting) { try await bob.engine.sendRoomChatMessage("hello?") }

        // Host transfer: carol hosts, the former host lost the admin operations.
        try await host.engine.adminTransferHost(uid: "carol")
        try await carol.events.wait(for: "role carol host")
        try await carol.events.wait(for: "role host member")
        #expect(host.engine.getRoomInfo()?.hostUid == "carol")
        await #expect(throws: SMeetingError.unauthorized) { try await host.engine.adminMuteAll() }

        // Carol ends the meeting for everyone.
        try await carol.engine.adminEndRoom()
        try await host.events.wait(for: "ended carol")
        try await host.events.wait(for: "out ended")
        #expect(!host.engine.isInRoom && !carol.engine.isInRoom && host.events.endsToldTooEarly.isEmpty)
        try await eventually("everyone left the channel") { host.engine.srtc.getChannels().isEmpty && carol.engine.srtc.getChannels().isEmpty }
        await #expect(throws: SMeetingError.notInMeeting) { await host.engine.closeCamera(); try await host.engine.adminEndRoom() }
        #expect(try await host.engine.detailRoom(meetingId: created.meetingId).status == .ended)
        #expect(try await bob.engine.attendedRoom(page: 1).list.map(\.meetingId) == [created.meetingId])
        await #expect(throws: SMeetingError.apiError(code: 40903, message: "the meeting is ended")) {
            try await bob.engine.enterRoom(MeetingEnterReq(roomNo: created.roomNo, password: "2468"))
        }
        for m in [host, bob, carol] { await m.engine.logout() }
        await server.stop()
    }
}
