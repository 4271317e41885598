#if os(Linux)
import Foundation
import RTCMedia
import SMeeting
import SRTC
import SRTCTestSupport
import TestWait
import Testing

/// SMeeting on Linux devices: the remote video view in a real X server (Xvfb), the X11 screen as a
/// share, PulseAudio microphones and the speaker switch, and device ids that do not exist.
@Suite(.serialized) struct SMeetingDeviceTests {
    static let width = 320, height = 180

    /// The frame number the screen shows and how far its picture is from that frame as sent
    /// (mean absolute luma difference, 0–255).
    static func shownFrame(_ xvfb: XvfbServer, _ generator: TestPatternGenerator) throws -> (number: Int, difference: Double)? {
        let screen = try xvfb.screenshot().toI420()
        guard let number = TestPatternReader.frameNumber(in: screen) else { return nil }
        let sent = generator.buffer(number: number)
        let difference = screen.withPlane(0) { shown in
            sent.withPlane(0) { original in
                zip(shown, original).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
            }
        }
        return (number, Double(difference) / Double(screen.width * screen.height))
    }

    @Test func remoteVideoViewsDrawTheMembersCameraAndShareOneSubscription() async throws {
        let xvfb = try await XvfbServer.start(width: Self.width, height: Self.height)
        let server = try TestServer.withMeetings()
        let alice = try await TestMember(server: server, uid: "alice")
        let bob = try await TestMember(server: server, uid: "bob")
        let meeting = try await alice.host(MeetingCreateReq(title: "views"))
        try await bob.engine.enterRoom(MeetingEnterReq(meetingId: meeting.meetingId))
        _ = try await alice.engine.requestOpenCamera(preset: VideoPreset(width: Self.width, height: Self.height, frameRate: 30, maxBitrate: 800_000))
        try await bob.events.wait(for: "camera alice on")
        let pusher = try MeetingMediaPusher(engine: alice.engine, width: Self.width, height: Self.height)
        defer { pusher.stop() }
        let generator = try TestPatternGenerator(width: Self.width, height: Self.height)

        // Bob's view covers the whole X screen: what the screen shows is alice's camera as sent.
        let view = try SMeetingRemoteVideoView(meeting: bob.engine, uid: "alice", display: xvfb.display, width: Self.width, height: Self.height)
        let remote = try #require(try await view.appear())
        let shown = try await waitFor(timeout: 15, "a frame of alice's camera on the screen") { try? Self.shownFrame(xvfb, generator) }
        #expect(shown.difference < 12, "the screen differs from frame \(shown.number) by \(shown.difference) per pixel")
        #expect(shown.number <= pusher.framesPushed)
        try await eventually(timeout: 10, "the screen moving on") {
            ((try? Self.shownFrame(xvfb, generator))?.number ?? 0) > shown.number + 5
        }

        // A second view of the same camera shares the subscription; the first one going leaves it.
        let second = try SMeetingRemoteVideoView(meeting: bob.engine, uid: "alice", display: xvfb.display, width: Self.width, height: Self.height)
        try await second.appear()
        await view.close()
        #expect(view.window.isClosed && remote.isSubscribed)
        let drawn = second.window.framesDrawn
        try await eventually("the second view drawing on") { second.window.framesDrawn > drawn + 10 }
        await second.disappear()
        try await eventually("unsubscribed once no view is left") { !remote.isSubscribed }
        try await second.appear()
        try await eventually("subscribed again") { remote.isSubscribed && second.window.framesDrawn > drawn + 20 }

        // Alice shares this X screen, which shows her camera: bob decodes her frame numbers from it.
        try await alice.engine.requestShare(display: xvfb.display, preset: VideoPreset(width: Self.width, height: Self.height, frameRate: 15, maxBitrate: 600_000))
        try await bob.events.wait(for: "share+ alice 1")
        let screen = MeetingMediaCollector()
        try await bob.engine.startPlayRemoteVideo(view: screen, uid: "alice", trackDesc: .screen)
        try await eventually(timeout: 15, "alice's screen decoded") { Set(screen.numbers).count >= 10 }
        #expect(screen.sizes == ["\(Self.width)x\(Self.height)"])
        await alice.engine.stopShare()
        #expect(alice.engine.screenTrack == nil)

        await second.close()
        await bob.engine.exitRoom()
        await alice.engine.exitRoom()
        await server.stop()
        await xvfb.stop()
    }

    /// Seed 001: remote audio is subscribed and played on entry. Two members, each with a sound
    /// server of its own (its default sink "speaker", its microphone the monitor of "mic", into
    /// which a tone plays); neither app calls anything about the speaker, and each one's speaker
    /// carries the other's tone. Leaving the meeting stops the speaker the meeting started.
    @Test func eachMemberHearsTheOtherWithoutStartingTheSpeaker() async throws {
        let pulses = [try await PulseAudioServer.start(sinks: ["speaker", "mic"]), try await PulseAudioServer.start(sinks: ["speaker", "mic"])]
        for pulse in pulses { try await pulse.pactl(["set-default-sink", "speaker"]) }
        let server = try TestServer.withMeetings()
        let alice = try await TestMember(server: server, uid: "alice", audioServer: pulses[0].address)
        let bob = try await TestMember(server: server, uid: "bob", audioServer: pulses[1].address)
        let tones = [try pulses[0].playTone(into: "mic", frequency: 440), try pulses[1].playTone(into: "mic", frequency: 660)]
        let meeting = try await alice.host(MeetingCreateReq(title: "hear me"))
        try await bob.engine.enterRoom(MeetingEnterReq(meetingId: meeting.meetingId))
        #expect(alice.engine.srtc.isAudioPlaybackRunning && bob.engine.srtc.isAudioPlaybackRunning)
        try await alice.engine.requestOpenMic(deviceId: "mic.monitor")
        try await bob.engine.requestOpenMic(deviceId: "mic.monitor")
        let speakers = [try pulses[0].record("speaker.monitor"), try pulses[1].record("speaker.monitor")]
        for (speaker, (who, expected)) in zip(speakers, [("alice", 660.0), ("bob", 440.0)]) {
            try await eventually(timeout: 15, "\(who)'s speaker carries \(expected) Hz; now \(String(describing: speaker.toneFrequency(lastSeconds: 1)))") {
                speaker.toneFrequency(lastSeconds: 1).map { abs($0 - expected) < 10 } == true
            }
        }
        await bob.engine.exitRoom()
        #expect(!bob.engine.srtc.isAudioPlaybackRunning, "the speaker the meeting started stops with it")
        for speaker in speakers { await speaker.stop() }
        for tone in tones { await tone.stop() }
        await alice.engine.exitRoom()
        await server.stop()
        for pulse in pulses { await pulse.stop() }
    }

    /// Seed 001: `requestOpenMic` without a `deviceId` uses the default device. The member's
    /// sound server has a default source (the monitor of "mic", into which a tone plays): the
    /// meeting engine lists it, opening the microphone without naming it captures it, and the
    /// other member hears the tone. A member whose system has no microphone at all gets the
    /// custom track it feeds (a bot).
    @Test func theMicrophoneWithoutADeviceIdIsTheSystemsDefaultOne() async throws {
        let pulse = try await PulseAudioServer.start(sinks: ["speaker", "mic"])
        try await pulse.pactl(["set-default-sink", "speaker"])
        try await pulse.pactl(["set-default-source", "mic.monitor"])
        let server = try TestServer.withMeetings()
        let alice = try await TestMember(server: server, uid: "alice", audioServer: pulse.address)
        let bot = try await TestMember(server: server, uid: "bot", audioServer: "unix:/nonexistent/pulse/native")
        let listener = MeetingMediaCollector()
        let meeting = try await alice.host(MeetingCreateReq(title: "default mic"))
        try await bot.engine.enterRoom(MeetingEnterReq(meetingId: meeting.meetingId))
        bot.engine.addRemoteAudioRenderer(listener)
        let inputs = alice.engine.getDevices(kind: .audioInput)
        #expect(inputs.first { $0.isDefault }?.deviceId == "mic.monitor", "\(inputs)")
        let tone = try pulse.playTone(into: "mic", frequency: 440)
        try await alice.engine.requestOpenMic()
        let mic = try #require(alice.engine.micTrack as? LocalMicrophoneTrack, "a device track, not a custom one")
        #expect(mic.deviceId == nil, "captured from the server's default source")
        try await eventually(timeout: 15, "the bot hears alice's default microphone; now \(String(describing: listener.toneFrequency))") {
            listener.toneFrequency.map { abs($0 - 440) < 10 } == true
        }
        // The bot's system has no microphone: its mic is the custom track it feeds.
        #expect(bot.engine.getDevices(kind: .audioInput).isEmpty)
        try await bot.engine.requestOpenMic()
        #expect(bot.engine.micTrack is LocalCustomAudioTrack)
        await tone.stop()
        await bot.engine.exitRoom()
        await alice.engine.exitRoom()
        await server.stop()
        await pulse.stop()
    }

    @Test func aMicrophoneDeviceIsHeardOnTheSpeakerUntilMuted() async throws {
        let pulse = try await PulseAudioServer.start(sinks: ["mic", "speaker"])
        let server = try TestServer.withMeetings()
        let alice = try await TestMember(server: server, uid: "alice", audioServer: pulse.address)
        let bob = try await TestMember(server: server, uid: "bob", audioServer: pulse.address)
        let meeting = try await alice.host(MeetingCreateReq(title: "devices"))
        try await bob.engine.enterRoom(MeetingEnterReq(meetingId: meeting.meetingId))

        // Device ids that do not exist: a device error, and the meeting state rolled back.
        await #expect(throws: SMeetingError.deviceError("microphone: not found: PulseAudio device no-such-source")) {
            try await alice.engine.requestOpenMic(deviceId: "no-such-source")
        }
        await #expect(throws: SMeetingError.self) { _ = try await alice.engine.requestOpenCamera(deviceId: "/dev/video-none") }
        await #expect(throws: SMeetingError.self) { try await alice.engine.requestShare(display: ":9999") }
        #expect(alice.engine.micTrack == nil && alice.engine.cameraTrack == nil && alice.engine.screenTrack == nil)
        try await eventually("nothing on for alice") {
            (try? bob.engine.getUserInfo("alice")).map { $0.micState == .off && $0.cameraState == .off } == true
                && bob.engine.getRoomInfo()?.sharingUid == nil
        }

        // Alice's microphone is the monitor of the "mic" sink, into which pacat plays 440 Hz; bob
        // plays the meeting on the "speaker" sink, whose monitor parec records.
        let tone = try pulse.playTone(into: "mic", frequency: 440)
        try await alice.engine.requestOpenMic(deviceId: "mic.monitor")
        #expect((alice.engine.micTrack as? LocalMicrophoneTrack)?.deviceId == "mic.monitor")
        try bob.engine.srtc.startAudioPlayback(deviceId: "speaker")
        let speaker = try pulse.record("speaker.monitor")
        try await eventually(timeout: 15, "the tone on bob's speaker") { speaker.toneFrequency(lastSeconds: 1) != nil }
        let played = try #require(speaker.toneFrequency(lastSeconds: 1))
        #expect(abs(played - 440) < 10, "the speaker played \(played) Hz")

        // The speaker switch: silence on the sink, the subscription stays.
        bob.engine.toggleRemoteAudioMute(true)
        #expect(bob.engine.srtc.remoteAudioMuted)
        let remote = try #require(bob.channel?.remoteTrack(uid: "alice", desc: "mic") as? RemoteAudioTrack)
        let mutedFrom = speaker.count, decoded = remote.framesDecoded
        try await eventually(timeout: 5, "half a second recorded while muted") { speaker.count > mutedFrom + 36_000 }
        let muted = Array(speaker.all[(mutedFrom + 12_000)...])
        #expect(FrequencyEstimator.rms(muted) < 0.001, "muted level \(FrequencyEstimator.rms(muted))")
        #expect(remote.isSubscribed && remote.framesDecoded > decoded)
        bob.engine.toggleRemoteAudioMute(false)
        let unmutedFrom = speaker.count
        try await eventually(timeout: 10, "the tone back on the speaker") {
            speaker.count > unmutedFrom + 48_000 && speaker.toneFrequency(lastSeconds: 0.5).map { abs($0 - 440) < 10 } == true
        }

        await alice.engine.closeMic()
        #expect(alice.engine.micTrack == nil)
        bob.engine.srtc.stopAudioPlayback()
        await tone.stop()
        await speaker.stop()
        await bob.engine.exitRoom()
        await alice.engine.exitRoom()
        await server.stop()
        await pulse.stop()
    }
}
#endif
