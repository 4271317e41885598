import Foundation
import SMeetingProtocol
import SRTC

/// Microphone, camera, sharing and remote media. On Apple platforms the microphone and camera are
/// captured by SRTC. On Linux a `deviceId` captures that device (PulseAudio, V4L2) and
/// `requestShare(display:)` an X11 screen; without them the tracks are custom tracks the app feeds
/// (`pushMicAudio`, `pushCameraFrame`, `pushScreenFrame`, or the tracks themselves).
extension SMeetingEngine {
    // MARK: - Local tracks

    /// My published microphone track, if the mic is on.
    public var micTrack: LocalAudioTrack? { state.withLock { $0.micTrack } }
    /// My published camera track (`camera_big` with a `camera_small` simulcast layer), if on.
    public var cameraTrack: LocalCameraTrack? { state.withLock { $0.cameraTrack } }
    /// My published screen track, if I share my screen.
    public var screenTrack: LocalVideoTrack? { state.withLock { $0.screenTrack } }

    /// Feeds the microphone track (Linux, opened without a `deviceId`: a custom track). Ignored
    /// when the mic is off or captures a device.
    public func pushMicAudio(_ buffer: AudioPCMBuffer) {
        (micTrack as? LocalCustomAudioTrack)?.pushAudioBuffer(buffer)
    }

    /// Feeds the camera track (Linux without a camera: opened without a `deviceId`, it captures
    /// nothing). Returns `false` when the camera is off, captures a device, or the frame was skipped.
    @discardableResult
    public func pushCameraFrame(_ frame: VideoFrame) -> Bool {
        cameraTrack?.pushFrame(frame) ?? false
    }

    /// Feeds the screen track (Linux, `requestShare(shareType: .screen)`). Returns `false` when not
    /// sharing the screen or when sharing an X11 display.
    @discardableResult
    public func pushScreenFrame(_ frame: VideoFrame) -> Bool {
        (screenTrack as? LocalCustomVideoTrack)?.pushFrame(frame) ?? false
    }

    // MARK: - Microphone

    /// Turns the microphone on: asks the meeting (room policies apply; `byAdmin` confirms a
    /// host's request), then captures `deviceId` (from `getDevices(kind: .audioInput)`; nil: the
    /// system's default microphone, or on a Linux system without any a custom track fed with
    /// `pushMicAudio`) and publishes. On failure the
    /// meeting state is rolled back.
    /// - Throws: `.unauthorized` under mute all for members, `.apiError`, `.deviceError` when the
    ///   device cannot be captured, SRTC errors.
    public func requestOpenMic(deviceId: String? = nil, preset: MicPreset = .music, byAdmin: Bool = false, adminUid: String? = nil) async throws {
        let (client, channel) = try inMeeting()
        _ = try await client.call(.requestOpenMic, OpenReq(byAdmin: byAdmin ? true : nil, adminUid: adminUid), MeetingUserInfo.self)
        if micTrack != nil { return }
        do {
            let track = try await makeMicTrack(deviceId: deviceId, preset: preset)
            do { try await channel.publishLocalTrack(track) } catch {
                stopCapture(track)
                throw error
            }
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

    /// Turns the camera on: asks the meeting, then captures `deviceId` (from
    /// `getDevices(kind: .videoInput)`; nil: the default camera, or on a Linux system without any
    /// a camera track that captures nothing, fed with `pushCameraFrame`) and publishes `camera_big`
    /// with a `camera_small` simulcast layer. Returns the camera track (seed 001's
    /// `LocalCameraTrack`, also `cameraTrack`). `view` gets the local preview. Calling it again returns the same track, moved to
    /// `deviceId` when another device is named.
    /// - Throws: `.unauthorized` under camera off for everyone for members, `.apiError`,
    ///   `.deviceError` when the device cannot be captured, SRTC errors.
    @discardableResult
    public func requestOpenCamera(view: NativeVideoView? = nil, deviceId: String? = nil, preset: CameraPreset = .h720p,
                                  byAdmin: Bool = false, adminUid: String? = nil) async throws -> LocalCameraTrack {
        let (client, channel) = try inMeeting()
        _ = try await client.call(.requestOpenCamera, OpenReq(byAdmin: byAdmin ? true : nil, adminUid: adminUid), MeetingUserInfo.self)
        if let track = cameraTrack {
            if let deviceId, track.deviceId != deviceId { try await switchCameraDevice(track, deviceId: deviceId) }
            if let view { track.add(videoRenderer: view) }
            return track
        }
        do {
            let track = try await makeCameraTrack(deviceId: deviceId, preset: preset)
            if let view { track.add(videoRenderer: view) }
            do { try await channel.publishLocalTrack(track) } catch {
                stopCapture(track)
                throw error
            }
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

    /// Switches the camera: to `deviceId`, or without one between front and back (iOS, macOS) or
    /// to the next camera (Linux). A Linux camera opened without a `deviceId` is the custom track
    /// the app feeds: there is nothing to switch, the call only checks that the camera is on.
    /// - Throws: `.deviceError` when the camera is not on or the target cannot be captured (the
    ///   current camera then stays).
    public func switchCamera(deviceId: String? = nil) async throws {
        guard let track = cameraTrack else { throw SMeetingError.deviceError("the camera is not on") }
        try await switchCameraDevice(track, deviceId: deviceId)
    }

    // MARK: - Sharing

    /// Starts sharing. `.whiteBoard` only announces the state; `.screen` publishes a `screen`
    /// track (on Linux a custom track fed with `pushScreenFrame`; `requestShare(display:)`
    /// captures an X11 screen instead).
    /// - Throws: `.unauthorized` when sharing is disabled for members, `.internalError` when I am
    ///   already sharing, `.apiError` (someone else shares: 40904).
    public func requestShare(shareType: ShareType = .screen, preset: ScreenPreset = .h1080p, view: NativeVideoView? = nil,
                             byAdmin: Bool = false, adminUid: String? = nil) async throws {
        try await share(shareType, view: view, byAdmin: byAdmin, adminUid: adminUid) {
            self.srtc.createLocalCustomVideoTrack(desc: "screen", preset: preset, simulcast: false)
        }
    }

    #if os(Linux)
    /// Shares the screen of an X11 display (`":0"`; the Linux counterpart of macOS's
    /// `requestShare(source:)`): the whole screen, scaled to fit `preset`, captured through
    /// MIT-SHM. The sharing rules are those of `requestShare(shareType: .screen)`.
    /// - Throws: as `requestShare(shareType:)`, and `.deviceError` when the display cannot be
    ///   opened (the sharing state is rolled back).
    public func requestShare(display: String, preset: ScreenPreset = .h1080p, view: NativeVideoView? = nil,
                             byAdmin: Bool = false, adminUid: String? = nil) async throws {
        try await share(.screen, view: view, byAdmin: byAdmin, adminUid: adminUid) {
            let track = self.srtc.createLocalScreenTrack(preset: preset)
            do { try await track.startCapture(display: display) } catch { throw SMeetingError.deviceError("screen: \(error)") }
            return track
        }
    }

    #endif

    #if os(Linux) || (canImport(ScreenCaptureKit) && os(macOS))
    /// Shares a display or one window (seed 001's `requestShare(source:…)`; on Linux the sources
    /// `ScreenCaptureSources` lists from an X display). Sharing a whole display includes this
    /// app's own windows unless `excludedWindowIds` names them (`SRTCVideoRenderer.windowId`), or
    /// `excludesCurrentApplication` cuts out all of this process's windows (`excludedWindowIds`
    /// is then ignored); X11 paints the cut-out windows black. Sharing rules as
    /// `requestShare(shareType: .screen)`.
    /// - Throws: as `requestShare(shareType:)`, and `.deviceError` when the source cannot be
    ///   captured (the sharing state is rolled back).
    public func requestShare(source: any ScreenCaptureSource, preset: ScreenPreset = .h1080p, view: NativeVideoView? = nil,
                             byAdmin: Bool = false, adminUid: String? = nil, excludedWindowIds: [UInt32] = [],
                             excludesCurrentApplication: Bool = false) async throws {
        try await share(.screen, view: view, byAdmin: byAdmin, adminUid: adminUid) {
            let track = self.srtc.createLocalScreenTrack(preset: preset)
            do {
                try await track.startCapture(source: source, excludedWindowIds: excludedWindowIds,
                                             excludesCurrentApplication: excludesCurrentApplication)
            } catch {
                throw SMeetingError.deviceError("screen: \(error)")
            }
            return track
        }
    }
    #endif

    /// Asks the meeting, then (for `.screen`) publishes the track `makeTrack` gives; rolls the
    /// sharing state back when that fails.
    func share(_ shareType: ShareType, view: NativeVideoView?, byAdmin: Bool, adminUid: String?,
                       makeTrack: () async throws -> LocalVideoTrack) async throws {
        let (client, channel) = try inMeeting()
        if let me = currentUserId, getRoomInfo()?.sharingUid == me { throw SMeetingError.internalError("already sharing") }
        _ = try await client.call(.requestShare, ShareReq(shareType: shareType, byAdmin: byAdmin ? true : nil, adminUid: adminUid), MeetingUserInfo.self)
        guard shareType == .screen else { return }
        var track: LocalVideoTrack?
        do {
            let made = try await makeTrack()
            track = made
            if let view { made.add(videoRenderer: view) }
            try await channel.publishLocalTrack(made)
            state.withLock { $0.screenTrack = made }
        } catch {
            stopCapture(track)
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
        stopCapture(track)
        if let track, track === broadcastTrack { srtc.stopScreenRecord() }   // ends the user's broadcast; listening goes on
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

    /// The speaker switch: `true` stops remote audio playback (subscriptions stay): the engine's
    /// speaker (`srtc.startAudioPlayback`, `srtc.remoteAudioMuted`) plays silence and the remote
    /// audio renderers get nothing.
    public func toggleRemoteAudioMute(_ mute: Bool) {
        state.withLock { $0.remoteAudioMuted = mute }
        srtc.remoteAudioMuted = mute
    }

    /// Whether remote audio playback is muted.
    public var isRemoteAudioMuted: Bool { state.withLock { $0.remoteAudioMuted } }

    /// Adds a receiver of remote audio (held weakly): each member's decoded 20 ms buffers, as they
    /// arrive, while playback is not muted. Linux has no speaker; this is where the audio goes.
    public func addRemoteAudioRenderer(_ renderer: AudioRenderer) { remoteAudioRenderers.add(renderer) }

    /// Removes a receiver of remote audio.
    public func removeRemoteAudioRenderer(_ renderer: AudioRenderer) { remoteAudioRenderers.remove(renderer) }
}
