import Foundation
import SMeetingProtocol
import SRTC

/// Microphone, camera, sharing and remote media. On Linux the devices are custom tracks the app
/// feeds (`pushMicAudio`, `pushCameraFrame`, `pushScreenFrame`, or the tracks themselves); on
/// Apple platforms the microphone and camera are captured by SRTC.
extension SMeetingEngine {
    // MARK: - Local tracks

    /// My published microphone track, if the mic is on.
    public var micTrack: LocalAudioTrack? { state.withLock { $0.micTrack } }
    /// My published camera track (`camera_big` with a `camera_small` simulcast layer), if on.
    public var cameraTrack: LocalVideoTrack? { state.withLock { $0.cameraTrack } }
    /// My published screen track, if I share my screen.
    public var screenTrack: LocalVideoTrack? { state.withLock { $0.screenTrack } }

    /// Feeds the microphone track (Linux: the mic is a custom track). Ignored when the mic is off.
    public func pushMicAudio(_ buffer: AudioPCMBuffer) {
        (micTrack as? LocalCustomAudioTrack)?.pushAudioBuffer(buffer)
    }

    /// Feeds the camera track (Linux). Returns `false` when the camera is off or the frame was skipped.
    @discardableResult
    public func pushCameraFrame(_ frame: VideoFrame) -> Bool {
        (cameraTrack as? LocalCustomVideoTrack)?.pushFrame(frame) ?? false
    }

    /// Feeds the screen track (Linux). Returns `false` when not sharing the screen.
    @discardableResult
    public func pushScreenFrame(_ frame: VideoFrame) -> Bool {
        (screenTrack as? LocalCustomVideoTrack)?.pushFrame(frame) ?? false
    }

    // MARK: - Microphone

    /// Turns the microphone on: asks the meeting (room policies apply; `byAdmin` confirms a
    /// host's request), then publishes. On failure the meeting state is rolled back.
    /// - Throws: `.unauthorized` under mute all for members, `.apiError`, SRTC errors.
    public func requestOpenMic(deviceId: String? = nil, preset: MicPreset = .music, byAdmin: Bool = false, adminUid: String? = nil) async throws {
        let (client, channel) = try inMeeting()
        _ = try await client.call(.requestOpenMic, OpenReq(byAdmin: byAdmin ? true : nil, adminUid: adminUid), MeetingUserInfo.self)
        if micTrack != nil { return }
        do {
            let track = try await makeMicTrack(preset: preset)
            try await channel.publishLocalTrack(track)
            state.withLock { $0.micTrack = track }
        } catch {
            _ = try? await client.call(.closeMic, EmptyPayload(), MeetingUserInfo.self)
            throw error
        }
    }

    /// Turns the microphone off: unpublishes and tells the meeting. Never throws.
    public func closeMic() async {
        guard let (client, _) = try? inMeeting() else { return }
        await unpublishMic()
        _ = try? await client.call(.closeMic, EmptyPayload(), MeetingUserInfo.self)
    }

    func unpublishMic() async {
        let (track, channel) = state.withLock { s -> (LocalAudioTrack?, Channel?) in defer { s.micTrack = nil }; return (s.micTrack, s.channel) }
        if let track, let channel { try? await channel.unpublishLocalTrack(track) }
        stopCapture(track)
    }

    // MARK: - Camera

    /// Turns the camera on: asks the meeting, then publishes `camera_big` with a `camera_small`
    /// simulcast layer. `view` gets the local preview. Calling it again returns the same track.
    /// - Throws: `.unauthorized` under camera off for everyone for members, `.apiError`, SRTC errors.
    @discardableResult
    public func requestOpenCamera(view: NativeVideoView? = nil, deviceId: String? = nil, preset: CameraPreset = .h720p,
                                  byAdmin: Bool = false, adminUid: String? = nil) async throws -> LocalVideoTrack {
        let (client, channel) = try inMeeting()
        _ = try await client.call(.requestOpenCamera, OpenReq(byAdmin: byAdmin ? true : nil, adminUid: adminUid), MeetingUserInfo.self)
        if let track = cameraTrack {
            if let view { track.add(videoRenderer: view) }
            return track
        }
        do {
            let track = try await makeCameraTrack(preset: preset)
            if let view { track.add(videoRenderer: view) }
            try await channel.publishLocalTrack(track)
            state.withLock { $0.cameraTrack = track }
            return track
        } catch {
            _ = try? await client.call(.closeCamera, EmptyPayload(), MeetingUserInfo.self)
            throw error
        }
    }

    /// Turns the camera off. Never throws.
    public func closeCamera() async {
        guard let (client, _) = try? inMeeting() else { return }
        await unpublishCamera()
        _ = try? await client.call(.closeCamera, EmptyPayload(), MeetingUserInfo.self)
    }

    func unpublishCamera() async {
        let (track, channel) = state.withLock { s -> (LocalVideoTrack?, Channel?) in defer { s.cameraTrack = nil }; return (s.cameraTrack, s.channel) }
        if let track, let channel { try? await channel.unpublishLocalTrack(track) }
        stopCapture(track)
    }

    /// Switches the camera: on iOS between front and back without `deviceId`, otherwise to the
    /// given device. On Linux the camera is the custom track the app feeds, so there is nothing to
    /// switch to: the call only checks that the camera is on.
    /// - Throws: `.deviceError` when the camera is not on.
    public func switchCamera(deviceId: String? = nil) async throws {
        guard let track = cameraTrack else { throw SMeetingError.deviceError("the camera is not on") }
        try await switchCameraDevice(track, deviceId: deviceId)
    }

    // MARK: - Sharing

    /// Starts sharing. `.whiteBoard` only announces the state; `.screen` publishes a `screen`
    /// track (on Linux a custom track fed with `pushScreenFrame`).
    /// - Throws: `.unauthorized` when sharing is disabled for members, `.internalError` when I am
    ///   already sharing, `.apiError` (someone else shares: 40904).
    public func requestShare(shareType: ShareType = .screen, preset: ScreenPreset = .h1080p, view: NativeVideoView? = nil,
                             byAdmin: Bool = false, adminUid: String? = nil) async throws {
        let (client, channel) = try inMeeting()
        if let me = currentUserId, getRoomInfo()?.sharingUid == me { throw SMeetingError.internalError("already sharing") }
        _ = try await client.call(.requestShare, ShareReq(shareType: shareType, byAdmin: byAdmin ? true : nil, adminUid: adminUid), MeetingUserInfo.self)
        guard shareType == .screen else { return }
        let track = srtc.createLocalCustomVideoTrack(desc: "screen", preset: preset, simulcast: false)
        if let view { track.add(videoRenderer: view) }
        do {
            try await channel.publishLocalTrack(track)
            state.withLock { $0.screenTrack = track }
        } catch {
            _ = try? await client.call(.stopShare, EmptyPayload(), MeetingUserInfo.self)
            throw error
        }
    }

    /// Stops sharing. Never throws.
    public func stopShare() async {
        guard let (client, _) = try? inMeeting() else { return }
        await unpublishScreen()
        _ = try? await client.call(.stopShare, EmptyPayload(), MeetingUserInfo.self)
    }

    func unpublishScreen() async {
        let (track, channel) = state.withLock { s -> (LocalVideoTrack?, Channel?) in defer { s.screenTrack = nil }; return (s.screenTrack, s.channel) }
        if let track, let channel { try? await channel.unpublishLocalTrack(track) }
    }

    // MARK: - Remote audio

    /// Subscribes to a member's audio (done automatically on entry; for fine control).
    public func subscribeRemoteAudioTrack(uid: String, trackDesc: TrackDesc = .mic) async throws {
        let (_, channel) = try inMeeting()
        guard let remote = channel.remoteTrack(uid: uid, desc: trackDesc.rawValue) as? RemoteAudioTrack else {
            throw SMeetingError.internalError("\(uid) has no \(trackDesc.rawValue) track")
        }
        if !remote.isSubscribed { try await channel.subscribe(remote) }
    }

    /// Unsubscribes a member's audio; silent when there is no such track.
    public func unsubscribeRemoteAudioTrack(uid: String, trackDesc: TrackDesc = .mic) async throws {
        let (_, channel) = try inMeeting()
        guard let remote = channel.remoteTrack(uid: uid, desc: trackDesc.rawValue), remote.isSubscribed else { return }
        try await channel.unsubscribe(remote)
    }

    /// The speaker switch: `true` stops remote audio playback (subscriptions stay).
    public func toggleRemoteAudioMute(_ mute: Bool) {
        state.withLock { $0.remoteAudioMuted = mute }
    }

    /// Whether remote audio playback is muted.
    public var isRemoteAudioMuted: Bool { state.withLock { $0.remoteAudioMuted } }

    /// Adds a receiver of remote audio (held weakly): each member's decoded 20 ms buffers, as they
    /// arrive, while playback is not muted. Linux has no speaker; this is where the audio goes.
    public func addRemoteAudioRenderer(_ renderer: AudioRenderer) { remoteAudioRenderers.add(renderer) }

    /// Removes a receiver of remote audio.
    public func removeRemoteAudioRenderer(_ renderer: AudioRenderer) { remoteAudioRenderers.remove(renderer) }
}
