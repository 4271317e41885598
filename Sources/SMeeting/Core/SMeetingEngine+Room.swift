import SMeetingProtocol
import SRTC

/// Entering and exiting (the waiting room included), the in-meeting snapshot, and the meeting's
/// SRTC channel, which changes on a move to or from a sub-meeting. The rules (where I am, what a
/// failed join or an exit leads to) are `SMeetingRoomMachine`'s; these calls feed it and carry
/// out what it says (`+Events`).
extension SMeetingEngine {
    // MARK: - Enter and exit

    /// Whether I am in a meeting (admitted; not while waiting).
    public var isInRoom: Bool { state.withLock { $0.meeting.room != nil } }

    /// Whether I wait in a meeting's waiting room.
    public var isInWaitingRoom: Bool { state.withLock { $0.meeting.waitingRoom != nil } }

    /// Enters a meeting by `meetingId` or `roomNo`: the server admits me and grants the meeting's
    /// SRTC channel, which the SDK then joins with `srtc`; remote audio is subscribed automatically.
    /// When the meeting has a waiting room, this returns with `isInWaitingRoom` true and
    /// `meeting(_:didEnterWaitingRoom:)`; `meeting(_:wasAdmittedFromWaitingRoom:)` follows once a
    /// host lets me in.
    @discardableResult
    public func enterRoom(_ req: MeetingEnterReq) async throws -> RoomInfo {
        let client = try loggedIn()
        guard state.withLock({ $0.meeting.beginEntry() }) else {
            throw SMeetingError.apiError(code: MeetingErrorCode.wrongState.rawValue, message: "already in a meeting")
        }
        let resp: EnterRoomResp
        do {
            // The snapshot lands on the reader, before the events that follow it.
            resp = try await client.call(.enterRoom, req, EnterRoomResp.self) { [weak self] resp in self?.meetingEvent(.entryAnswered(resp)) }
        } catch {
            meetingEvent(.entryFailed)
            throw error
        }
        try await carryOutAwaiting(meetingStep(.entryReturned(resp)))
        return getRoomInfo() ?? resp.room
    }

    /// Exits the current meeting, or the waiting room (the login stays). Never throws; does
    /// nothing outside a meeting.
    public func exitRoom() async {
        try? await carryOutAwaiting(meetingStep(.exitAsked))
        await state.withLock { $0.leaving }?.value
    }

    // MARK: - Snapshot

    /// The current room; `nil` outside a meeting (and while waiting).
    public func getRoomInfo() -> RoomInfo? { state.withLock { $0.meeting.room } }

    /// Every member, me included, in order of entry.
    public func getUsersInfoList() -> [MeetingUserInfo] {
        state.withLock { Array($0.meeting.users.values) }.sorted { ($0.enteredAt, $0.uid) < ($1.enteredAt, $1.uid) }
    }

    /// Every member by uid.
    public func getUsersInfo() -> [String: MeetingUserInfo] { state.withLock { $0.meeting.users } }

    /// One member; `.notInMeeting` outside a meeting, `.internalError` for an unknown uid.
    public func getUserInfo(_ uid: String) throws -> MeetingUserInfo {
        try state.withLock { s throws(SMeetingError) -> MeetingUserInfo in
            guard s.meeting.room != nil else { throw .notInMeeting }
            guard let user = s.meeting.users[uid] else { throw .internalError("\(uid) is not in the meeting") }
            return user
        }
    }

    /// The connection and channel of the current meeting, or `.notInMeeting`.
    func inMeeting() throws(SMeetingError) -> (MeetingClient, Channel) {
        let (client, room, channel, resuming) = state.withLock { ($0.client, $0.meeting.room, $0.channel, $0.resuming) }
        guard room != nil, let channel else { throw .notInMeeting }
        guard let client else { throw resuming ? .internalError("the meeting connection is being resumed") : .notLoggedIn }
        return (client, channel)
    }

    // MARK: - The meeting's channel

    /// Joins the channel `rtc` grants (leaving the one I am in first): after an entry, an
    /// admission or a move between the main meeting and a sub-meeting. My published tracks end
    /// with the old channel. Switches run one after the other.
    func joinChannel(_ rtc: RTCGrant, nickname: String) async throws {
        let (old, bridge, devices) = takeChannel()
        if let old {
            if let bridge { old.delegates.remove(delegate: bridge) }
            await old.leave()
        }
        for track in devices { stopCapture(track) }
        let channel = try srtc.createChannel()
        let newBridge = ChannelBridge(engine: self)
        channel.delegates.add(delegate: newBridge)
        let e2ee = try prepareE2EE(for: channel)
        state.withLock {
            $0.channel = channel
            $0.bridge = newBridge
            $0.e2ee = e2ee
        }
        do {
            _ = try await channel.join(url: url, token: rtc.token, nickname: nickname)
        } catch {
            channel.delegates.remove(delegate: newBridge)
            await channel.leave()
            throw error
        }
        startKeyExchange(on: channel)
        startSpeakerIfNeeded()
    }

    /// Members are heard without the app asking (seed 001: remote audio is subscribed and played
    /// on entry): the engine's speaker starts on its default output unless the app started it
    /// already (on a device of its choice). Where no output can be opened (a bot on a server
    /// without a sound server) the meeting goes on and remote audio reaches only the renderers of
    /// `addRemoteAudioRenderer(_:)`. `toggleRemoteAudioMute(_:)` silences it either way.
    func startSpeakerIfNeeded() {
        guard !srtc.isAudioPlaybackRunning else { return }
        guard (try? srtc.startAudioPlayback()) != nil else { return }
        srtc.remoteAudioMuted = state.withLock { s in
            s.startedSpeaker = true
            return s.remoteAudioMuted
        }
    }

    /// Runs `body` after every earlier channel switch (moves arrive as events on the reader thread).
    @discardableResult
    func switchChannel(_ body: @escaping @Sendable () async throws -> Void) -> Task<Void, any Error> {
        state.withLock { s in
            let previous = s.channelSwitch
            let task = Task {
                await previous?.value
                try await body()
            }
            s.channelSwitch = Task { _ = await task.result }
            return task
        }
    }

    /// The stay ended (the meeting's state is out already): leaves the SRTC channel in the
    /// background, stops my devices, the broadcast share and the speaker the meeting started.
    func leaveChannel() {
        let (channel, bridge, devices) = takeChannel()
        for track in devices { stopCapture(track) }
        dropBroadcast()
        // The speaker the meeting started ends with it; one the app started is the app's.
        if state.withLock({ s in defer { s.startedSpeaker = false }; return s.startedSpeaker }) { srtc.stopAudioPlayback() }
        if let channel {
            if let bridge { channel.delegates.remove(delegate: bridge) }
            let leaving = Task { await channel.leave() }
            state.withLock { $0.leaving = leaving }
        }
    }

    /// Forgets the channel and what was published in it; returns them to leave and stop.
    private func takeChannel() -> (Channel?, ChannelBridge?, [LocalTrack?]) {
        state.withLock { s in
            defer { s.dropChannel() }
            return (s.channel, s.bridge, [s.micTrack, s.cameraTrack, s.screenTrack])
        }
    }

    func notify(_ body: @escaping @Sendable (SMeetingDelegate, SMeetingEngine) -> Void) {
        delegates.notify { [weak self] d in if let self { body(d, self) } }
    }
}
