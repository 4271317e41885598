import Foundation
import RTCMedia
import SMeeting
import SMeetingProtocol
import SRTC
import SRTCProtocol
import SRTCTestSupport
import TestWait
import Testing

/// The meeting is the authority over its channel's media: whatever a client does — the SDK, the
/// SDK bypassed through `meeting.srtc`, or a WebRTC client of its own holding the channel token —
/// what the room rules forbid does not reach the other members. Checked by counting the RTP
/// packets that arrive, never by events.
@Suite(.serialized) struct SMeetingMediaRulesTests {
    static let preset = VideoPreset(width: 160, height: 90, frameRate: 30, maxBitrate: 200_000)

    /// A member without the SDK: the meeting protocol on its own socket, and WebRTC of its own
    /// (`MediaTestClient`) in the meeting's channel, with the token the meeting handed out.
    struct RawMember {
        let socket: MeetingTestSocket
        let media: MediaTestClient
        let publisher: MediaTestPublisher
        let sending: Task<Void, any Error>

        init(server: TestServer, uid: String, meetingId: String) async throws {
            socket = try await MeetingTestSocket(url: server.meetingURL)
            try await socket.login(server.memberToken(uid: uid))
            let entered = try socket.data(EnterRoomResp.self, try await socket.call(.enterRoom, MeetingEnterReq(meetingId: meetingId)).text)
            let rtc = try #require(entered.rtc)
            #expect(try await socket.call(.requestOpenMic, OpenReq()).ok)
            media = try await MediaTestClient(server: server, uid: uid, token: rtc.token)
            _ = try await media.publish(audioSSRC: 0xAA00_0001)
            publisher = try MediaTestPublisher(client: media, audioSSRC: 0xAA00_0001, toneHz: 660)
            sending = Task { [publisher] in try await publisher.run(seconds: 60, video: false) }
        }

        func close() {
            sending.cancel()
            media.close()
            socket.close()
        }
    }

    @Test func muteAllSilencesTheSDKTheSDKBypassedAndARawWebRTCClient() async throws {
        let server = try TestServer.withMeetings()
        let host = try await TestMember(server: server, uid: "host")
        let bob = try await TestMember(server: server, uid: "bob")
        let meeting = try await host.host(MeetingCreateReq(title: "rules"))
        try await bob.engine.enterRoom(MeetingEnterReq(meetingId: meeting.meetingId))
        let bobChannel = try #require(bob.channel)

        // Through meeting.srtc a member cannot publish a mic the meeting has not opened.
        let extra = bob.engine.srtc.createLocalCustomAudioTrack(desc: "mic")
        await #expect(throws: SRTCError.self) { try await bobChannel.publishLocalTrack(extra) }
        do { try await bobChannel.publishLocalTrack(extra) } catch { #expect(error.serverCode == .policyForbidden) }
        // Once it has, a second mic published behind the SDK's back is accepted (for now).
        try await bob.engine.requestOpenMic()
        try await bobChannel.publishLocalTrack(extra)
        let pusher = try MeetingMediaPusher(width: 64, height: 64, video: { _ in }, audio: { pcm in
            bob.engine.pushMicAudio(pcm)
            extra.pushAudioBuffer(pcm)
        })
        defer { pusher.stop() }
        let raw = try await RawMember(server: server, uid: "raw", meetingId: meeting.meetingId)
        defer { raw.close() }

        let fromBob = PacketCounter(at: host, from: "bob", kind: .audio)
        let fromRaw = PacketCounter(at: host, from: "raw", kind: .audio)
        try await fromBob.waitForMore(50, "bob's two mics heard")
        try await fromRaw.waitForMore(20, "the raw client heard")
        #expect(host.channel?.remoteTracks(uid: "bob").filter { $0.kind == .audio }.count == 2)

        // Mute all: the SDK unpublishes its mic; the bypassing mic and the raw client are held by the SFU.
        try await host.engine.adminMuteAll(allowSelfUnmute: false)
        try await fromBob.expectSilence("bob after mute all")
        try await fromRaw.expectSilence("raw after mute all")
        // Unmuting itself is refused while held, and a new mic is refused too.
        let rawTrack = try #require(host.channel?.remoteTracks(uid: "raw").first { $0.kind == .audio })
        #expect(rawTrack.info?.muted == true)
        #expect(try await raw.media.signal.request(.mute(MuteRequest(trackId: rawTrack.id, muted: false))).errorCode == .policyForbidden)
        let another = bob.engine.srtc.createLocalCustomAudioTrack(desc: "mic")
        do {
            try await bobChannel.publishLocalTrack(another)
            Issue.record("a mic was published under mute all")
        } catch { #expect(error.serverCode == .policyForbidden) }
        try await fromBob.expectSilence(seconds: 0.3, "bob after a refused unmute")

        // The host's invitation, confirmed: the held mic flows again, with the SDK's new one.
        try await host.engine.adminRequestOpenMic(uid: "bob")
        try await bob.events.wait(for: "ask mic host")
        try await bob.engine.requestOpenMic(byAdmin: true, adminUid: "host")
        try await fromBob.waitForMore(50, "bob heard again")
        try await eventually("two mics of bob") { host.channel?.remoteTracks(uid: "bob").filter { $0.kind == .audio && $0.info?.muted == false }.count == 2 }
        try await fromRaw.expectSilence(seconds: 0.3, "raw still muted")
        try await host.engine.adminRequestOpenMic(uid: "raw")
        try await raw.socket.waitEvent(.adminRequest)
        #expect(try await raw.socket.call(.requestOpenMic, OpenReq(byAdmin: true, adminUid: "host")).ok)
        try await fromRaw.waitForMore(20, "raw heard again")
        await server.stop()
    }

    /// A WHIP publisher (docs/ingress.md) is a member like any other: it enters with the meeting
    /// protocol, publishes with the channel token the meeting hands it, and mute all holds its
    /// mic at the SFU, counted at the host.
    @Test func muteAllSilencesAWHIPPublisher() async throws {
        let server = try TestServer.withMeetings()
        let host = try await TestMember(server: server, uid: "host")
        let meeting = try await host.host(MeetingCreateReq(title: "whip"))
        let socket = try await MeetingTestSocket(url: server.meetingURL)
        defer { socket.close() }
        try await socket.login(server.memberToken(uid: "obs"))
        let entered = try socket.data(EnterRoomResp.self, try await socket.call(.enterRoom, MeetingEnterReq(meetingId: meeting.meetingId)).text)
        let rtc = try #require(entered.rtc)
        #expect(try await socket.call(.requestOpenMic, OpenReq()).ok)

        let engine = SRTCEngine(independent: .init(delegateQueue: DispatchQueue(label: "whip.events"), logLevel: .off))
        let whip = try WHIPPublisher(engine: engine)
        let mic = engine.createLocalCustomAudioTrack(desc: "mic")
        try await whip.publish([mic], endpoint: server.httpBase + "/whip/v1/" + rtc.channel, token: rtc.token)
        let pusher = try MeetingMediaPusher(width: 64, height: 64, video: { _ in }, audio: { mic.pushAudioBuffer($0) })
        defer { pusher.stop() }
        let fromWHIP = PacketCounter(at: host, from: "obs", kind: .audio)
        try await fromWHIP.waitForMore(20, "the WHIP publisher heard")

        try await host.engine.adminMuteAll(allowSelfUnmute: false)
        try await fromWHIP.expectSilence("the WHIP publisher after mute all")
        await whip.stop()
        await engine.destroy()
        await server.stop()
    }

    /// Refuses a publish through `meeting.srtc` with `policy_forbidden`.
    static func expectRefused(_ track: LocalTrack, on channel: Channel, _ what: String) async {
        do {
            try await channel.publishLocalTrack(track)
            Issue.record("\(what) was published")
        } catch { #expect(error.serverCode == .policyForbidden, "\(what): \(error)") }
    }

    @Test func cameraOffSharingDisabledVoiceAndTrainingModeHoldByWhatArrives() async throws {
        let server = try TestServer.withMeetings()
        let host = try await TestMember(server: server, uid: "host")
        let bob = try await TestMember(server: server, uid: "bob")
        let carol = try await TestMember(server: server, uid: "carol")
        let meeting = try await host.host(MeetingCreateReq(title: "policies"))
        for m in [bob, carol] { try await m.engine.enterRoom(MeetingEnterReq(meetingId: meeting.meetingId)) }
        let bobChannel = try #require(bob.channel)

        // Camera off for everyone: bob's SDK camera and a camera_big of his own behind its back.
        try await bob.engine.requestOpenCamera(preset: Self.preset)
        let bypassCamera = bob.engine.srtc.createLocalCustomVideoTrack(desc: "camera_big", preset: Self.preset, simulcast: false)
        try await bobChannel.publishLocalTrack(bypassCamera)
        let pusher = try MeetingMediaPusher(width: Self.preset.width, height: Self.preset.height, video: { frame in
            bob.engine.pushCameraFrame(frame)
            bypassCamera.pushFrame(frame)
            bob.engine.pushScreenFrame(frame)
        }, audio: { bob.engine.pushMicAudio($0) })
        defer { pusher.stop() }
        let bobCamera = PacketCounter(at: host, from: "bob", kind: .video, desc: "camera_big")
        for track in host.channel?.remoteTracks(uid: "bob").filter({ $0.kind == .video }) ?? [] {
            try await host.channel?.subscribe(track)
        }
        try await bobCamera.waitForMore(30, "bob's cameras")
        try await host.engine.adminCameraOffAll(allowSelfOpen: false)
        try await bobCamera.expectSilence("bob's cameras after camera off for everyone")
        await Self.expectRefused(bob.engine.srtc.createLocalCustomVideoTrack(desc: "camera_big", preset: Self.preset), on: bobChannel, "a camera under camera off")
        // Lifting the rule does not open anyone's camera: bob's held camera stays silent until he opens his.
        try await host.engine.adminCameraOnAll()
        try await bobCamera.expectSilence(seconds: 0.3, "bob's held camera before he opens it")
        try await bob.engine.requestOpenCamera(preset: Self.preset)
        try await eventually("bob's cameras back") { (host.channel?.remoteTracks(uid: "bob").filter { $0.desc == "camera_big" }.count ?? 0) == 2 }
        for track in host.channel?.remoteTracks(uid: "bob").filter({ $0.desc == "camera_big" && !$0.isSubscribed }) ?? [] {
            try await host.channel?.subscribe(track)
        }
        try await bobCamera.waitForMore(30, "bob's cameras after he opened his again")

        // Sharing: only the sharer may publish screen; disabling sharing ends bob's share on the SFU.
        await Self.expectRefused(carol.engine.srtc.createLocalCustomVideoTrack(desc: "screen", preset: Self.preset, simulcast: false),
                                 on: try #require(carol.channel), "a screen without sharing")
        try await bob.engine.requestShare(shareType: .screen, preset: Self.preset)
        let bobScreen = PacketCounter(at: host, from: "bob", kind: .video, desc: "screen")
        _ = try await host.engine.subscribeRemoteVideoTrack(uid: "bob", trackDesc: .screen)
        try await bobScreen.waitForMore(30, "bob's screen")
        await Self.expectRefused(carol.engine.srtc.createLocalCustomVideoTrack(desc: "screen", preset: Self.preset, simulcast: false),
                                 on: try #require(carol.channel), "a second screen while bob shares")
        try await host.engine.adminDisableShare(true)
        try await bobScreen.expectSilence("bob's screen after sharing was disabled")
        #expect(host.channel?.remoteTrack(uid: "bob", desc: "screen") == nil)
        await Self.expectRefused(bob.engine.srtc.createLocalCustomVideoTrack(desc: "screen", preset: Self.preset, simulcast: false),
                                 on: bobChannel, "a screen with sharing disabled")
        await #expect(throws: SMeetingError.unauthorized) { try await bob.engine.requestShare(shareType: .screen) }

        // Voice mode: every camera closes and none may be published.
        _ = try await host.engine.updateRoom(meetingId: meeting.meetingId, req: MeetingUpdateReq(mode: .voice))
        try await bobCamera.expectSilence("bob's cameras in a voice meeting")
        await #expect(throws: SMeetingError.unauthorized) { try await bob.engine.requestOpenCamera() }
        await Self.expectRefused(bob.engine.srtc.createLocalCustomVideoTrack(desc: "camera_big", preset: Self.preset), on: bobChannel, "a camera in a voice meeting")

        // Training mode: bob's mic closes; only presenters speak; a raised hand, approved, makes one.
        try await bob.engine.requestOpenMic()
        let bobAudio = PacketCounter(at: host, from: "bob", kind: .audio)
        try await bobAudio.waitForMore(20, "bob's mic")
        _ = try await host.engine.updateRoom(meetingId: meeting.meetingId, req: MeetingUpdateReq(mode: .training))
        try await bobAudio.expectSilence("bob in a training meeting")
        await #expect(throws: SMeetingError.unauthorized) { try await bob.engine.requestOpenMic() }
        await Self.expectRefused(bob.engine.srtc.createLocalCustomAudioTrack(desc: "mic"), on: bobChannel, "a mic of a member who is no presenter")
        try await bob.engine.raiseHand()
        try await host.events.wait(for: "hand bob true")
        try await host.engine.adminApproveHand(uid: "bob")
        try await bob.events.wait(for: "presenter bob true")
        try await bob.engine.requestOpenMic()
        try await bobAudio.waitForMore(20, "bob as a presenter")
        await #expect(throws: SMeetingError.unauthorized) { try await carol.engine.requestOpenMic() }
        try await host.engine.adminSetPresenter(uid: "bob", enable: false)
        try await bobAudio.expectSilence("bob no longer a presenter")
        await server.stop()
    }
}
