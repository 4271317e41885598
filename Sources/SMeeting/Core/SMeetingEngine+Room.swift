import SMeetingProtocol
import SRTC

/// Entering and exiting (the waiting room included), the in-meeting snapshot, and the meeting's
/// SRTC channel, which changes on a move to or from a sub-meeting.
extension SMeetingEngine {
    // MARK: - Enter and exit

    /// Whether I am in a meeting (admitted; not while waiting).
    public var isInRoom: Bool { state.withLock { $0.room != nil } }

    /// Whether I wait in a meeting's waiting room.
    public var isInWaitingRoom: Bool { state.withLock { $0.waitingRoom != nil } }

    /// Enters a meeting by `meetingId` or `roomNo`: the server admits me and grants the meeting's
    /// SRTC channel, which the SDK then joins with `srtc`; remote audio is subscribed automatically.
    /// When the meeting has a waiting room, this returns with `isInWaitingRoom` true and
    /// `meeting(_:didEnterWaitingRoom:)`; `meeting(_:wasAdmittedFromWaitingRoom:)` follows once a
    /// host lets me in.
    @discardableResult
    public func enterRoom(_ req: MeetingEnterReq) async throws -> RoomInfo {
        let client = try loggedIn()
        let allowed = state.withLock { s -> Bool in
            guard s.room == nil, s.waitingRoom == nil, !s.entering else { return false }
            s.entering = true
            return true
        }
        guard allowed else { throw SMeetingError.apiError(code: MeetingErrorCode.wrongState.rawValue, message: "already in a meeting") }
        let resp: EnterRoomResp
        do {
            resp = try await client.call(.enterRoom, req, EnterRoomResp.self) { [weak self] resp in self?.applySnapshot(resp) }
        } catch {
            state.withLock { $0.entering = false; $0.buffered = [] }
            throw error
        }
        guard let rtc = resp.rtc else {
            notify { d, engine in d.meeting(engine, didEnterWaitingRoom: resp.room) }
            return resp.room
        }
        do {
            try await joinChannel(rtc, nickname: resp.me.nickname)
        } catch {
            _ = try? await client.call(.exitRoom, EmptyPayload(), EmptyPayload.self)
            tearDown(nil)
            throw error
        }
        return getRoomInfo() ?? resp.room
    }

    /// Exits the current meeting, or the waiting room (the login stays). Never throws; does
    /// nothing outside a meeting.
    public func exitRoom() async {
        let (client, inRoom) = state.withLock { ($0.client, $0.room != nil || $0.waitingRoom != nil) }
        if inRoom, let client { _ = try? await client.call(.exitRoom, EmptyPayload(), EmptyPayload.self) }
        if inRoom { tearDown(.exit) }
        await state.withLock { $0.leaving }?.value
    }

    // MARK: - Snapshot

    /// The current room; `nil` outside a meeting (and while waiting).
    public func getRoomInfo() -> RoomInfo? { state.withLock { $0.room } }

    /// Every member, me included, in order of entry.
    public func getUsersInfoList() -> [MeetingUserInfo] {
        state.withLock { Array($0.users.values) }.sorted { ($0.enteredAt, $0.uid) < ($1.enteredAt, $1.uid) }
    }

    /// Every member by uid.
    public func getUsersInfo() -> [String: MeetingUserInfo] { state.withLock { $0.users } }

    /// One member; `.notInMeeting` outside a meeting, `.internalError` for an unknown uid.
    public func getUserInfo(_ uid: String) throws -> MeetingUserInfo {
        try state.withLock { s throws(SMeetingError) -> MeetingUserInfo in
            guard s.room != nil else { throw .notInMeeting }
            guard let user = s.users[uid] else { throw .internalError("\(uid) is not in the meeting") }
            return user
        }
    }

    /// The connection and channel of the current meeting, or `.notInMeeting`.
    func inMeeting() throws(SMeetingError) -> (MeetingClient, Channel) {
        let (client, room, channel, resuming) = state.withLock { ($0.client, $0.room, $0.channel, $0.resuming) }
        guard room != nil, let channel else { throw .notInMeeting }
        guard let client else { throw resuming ? .internalError("the meeting connection is being resumed") : .notLoggedIn }
        return (client, channel)
    }

    /// Applies a snapshot (`enter_room`'s answer, `waiting_admitted`) on the reader thread, then
    /// the events that arrived meanwhile.
    func applySnapshot(_ resp: EnterRoomResp) {
        let buffered = state.withLock { s -> [(MeetingEventType, String)] in
            if resp.waiting {
                s.waitingRoom = resp.room
            } else {
                s.waitingRoom = nil
                s.room = resp.room
                s.users = Dictionary(resp.users.map { ($0.uid, $0) }, uniquingKeysWith: { $1 })
                s.waitingUsers = Dictionary(resp.waitingUsers.map { ($0.uid, $0) }, uniquingKeysWith: { $1 })
                s.subMeetings = resp.subMeetings
            }
            s.entering = false
            defer { s.buffered = [] }
            return s.buffered
        }
        for (type, text) in buffered { handleEvent(type, text) }
    }

    // MARK: - The meeting's channel

    /// Joins the channel `rtc` grants (leaving the one I am in first): after an entry, an
    /// admission or a move between the main meeting and a sub-meeting. My published tracks end
    /// with the old channel. Switches run one after the other.
    func joinChannel(_ rtc: RTCGrant, nickname: String) async throws {
        let (old, bridge, devices) = state.withLock { s -> (Channel?, ChannelBridge?, [LocalTrack?]) in
            defer { s.dropChannel() }
            return (s.channel, s.bridge, [s.micTrack, s.cameraTrack, s.screenTrack])
        }
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

    /// Leaves the meeting state at once and the SRTC channel in the background; `reason` nil
    /// when the entry itself failed (no exit event then).
    /// - Parameter cause: the event that ended the stay (kicked, removed from the waiting room,
    ///   the meeting ended), told before `didExitRoom` and after the state changed: a delegate
    ///   that hears it finds the engine out of the meeting already (told first, it could read
    ///   `isInWaitingRoom` still true).
    func tearDown(_ reason: ExitReason?, cause: (@Sendable (SMeetingDelegate, SMeetingEngine) -> Void)? = nil) {
        let (channel, bridge, wasIn, devices) = state.withLock { s -> (Channel?, ChannelBridge?, Bool, [LocalTrack?]) in
            defer {
                s.room = nil
                s.waitingRoom = nil
                s.users = [:]
                s.waitingUsers = [:]
                s.subMeetings = []
                s.signIn = nil
                s.rollCalls = [:]
                s.dropChannel()
                s.entering = false
            }
            return (s.channel, s.bridge, s.room != nil || s.waitingRoom != nil, [s.micTrack, s.cameraTrack, s.screenTrack])
        }
        for track in devices { stopCapture(track) }
        dropBroadcast()
        // The speaker the meeting started ends with it; one the app started is the app's.
        if state.withLock({ s in defer { s.startedSpeaker = false }; return s.startedSpeaker }) { srtc.stopAudioPlayback() }
        if let channel {
            if let bridge { channel.delegates.remove(delegate: bridge) }
            let leaving = Task { await channel.leave() }
            state.withLock { $0.leaving = leaving }
        }
        if let cause { notify(cause) }
        if let reason, wasIn { notify { d, engine in d.meeting(engine, didExitRoom: reason) } }
    }

    func notify(_ body: @escaping @Sendable (SMeetingDelegate, SMeetingEngine) -> Void) {
        delegates.notify { [weak self] d in if let self { body(d, self) } }
    }
}
