import SRTCProtocol

/// One channel: its users, their tracks and subscriptions, and the fan-out of events.
///
/// Every change reaches the room through its `RoomInbox`, applied one at a time in the order it
/// happened: the entry points in `ChannelRoom+Inbox.swift` (join, requests, server API calls)
/// post a job and await its answer; the SFU and the timers post `RoomEvent`s. The methods of this
/// actor run only inside those jobs; reading a snapshot (`info`, `users`) may go to the actor
/// directly. A job must never wait for something that itself waits for this room's inbox.
actor ChannelRoom {
    let key: ChannelKey
    let createdAt: Int64
    let limits: ChannelLimits
    var metadata: String?
    /// Users by uid.
    var participants: [String: Participant] = [:]
    /// Every published track by id.
    var tracks: [String: TrackInfo] = [:]
    /// Set once the room closed; every later call is refused.
    var closed = false
    let media: RoomMedia?
    /// The media router exists (created on the first publish or subscribe).
    var mediaPrepared = false
    /// The router's creation while it is under way: requests arriving meanwhile (the actor is
    /// reentrant across the await) wait for it instead of creating it a second time.
    var mediaPreparation: Task<Bool, Never>?
    let observer: RoomObserver
    let clock: RoomClock
    /// The modules asked before a publish (`ChannelRoom+Authority`); set once when the room is made.
    let modules: [any ServerModule]
    /// Server-side mutes the modules put on this channel's tracks.
    var holds = MediaHolds()
    /// The one serial path of every change (see the type's comment).
    nonisolated let inbox = RoomInbox()
    /// The channel's joins per second (`+Membership`).
    var joinBucket: TokenBucket
    /// Joins per uid (a resume is not a join): one token holder's join loop cannot use up the
    /// channel's joins and keep everyone else out.
    var userJoinBuckets: KeyedTokenBuckets<String>
    /// The speaker list sent last (hidden participants removed), so an unchanged one is not resent.
    var lastSpeakers: ActiveSpeakersSnapshot?
    /// One report and level per participant measured by two media workers.
    var quality = QualityReportMerger()
    /// The same limit counted across a cluster (`--redis-url`), checked after this room's bucket.
    let sharedJoins: ClusterJoinLimiter?
    /// Where this room's record is kept for the channel's next node, on a cluster (`+Handoff`).
    private let records: RoomRecordStore?
    /// The record saved last (a change that leaves it equal writes nothing).
    private var savedRecord: RoomRecord?
    /// Handed to another node: the record stays as it was handed over.
    var handedOff = false

    init(key: ChannelKey, limits: ChannelLimits, media: RoomMedia?, observer: RoomObserver, clock: RoomClock = SystemRoomClock(),
         modules: [any ServerModule] = [], sharedJoins: ClusterJoinLimiter? = nil, records: RoomRecordStore? = nil) {
        self.sharedJoins = sharedJoins
        self.records = records
        self.key = key
        self.createdAt = clock.now()
        self.limits = limits
        self.media = media
        self.observer = observer
        self.clock = clock
        self.modules = modules
        self.joinBucket = TokenBucket(ratePerSecond: Double(limits.joinsPerSecond), burst: Double(limits.joinsPerSecond))
        self.userJoinBuckets = KeyedTokenBuckets(ratePerSecond: Double(limits.userJoinsPerSecond),
                                                 burst: Double(limits.userJoinsPerSecond * ChannelLimits.userJoinBurstSeconds))
        let entries = inbox.entries
        if let records {
            // Sessions the channel's previous node recorded are taken over before any join.
            _ = inbox.post(job: { room in
                let record = await records.load(room.key)
                if let record { room.adopt(record) }
                room.observer.channelOpened(room: room.key, takenOver: record != nil)
            })
        }
        Task { await self.drain(entries) }
    }

    /// Applies the inbox's entries one at a time until the room closes.
    private func drain(_ entries: AsyncStream<RoomInbox.Entry>) async {
        for await entry in entries {
            switch entry {
            case .event(let event):
                await apply(event)
                switch event {
                case .graceExpired, .tokenExpired: saveRecord()
                default: break
                }
            case .job(let job):
                await job(self)
                saveRecord()
            }
        }
    }

    /// Saves this room's record for the channel's next node when it changed (cluster only).
    private func saveRecord() {
        guard let records, !handedOff else { return }
        let record = self.record
        guard record != savedRecord else { return }
        savedRecord = record
        records.save(key, record.sessions.isEmpty ? nil : record)
    }

    // MARK: - Snapshots

    var info: ChannelInfo {
        ChannelInfo(channel: key.name, createdAt: createdAt, userCount: visibleCount, metadata: metadata)
    }

    /// Participants that are users (hidden egress workers are not: docs/protocol.md, "Hidden participants").
    var visibleCount: Int { participants.values.count { !$0.hidden } }

    func userInfo(_ p: Participant) -> UserInfo {
        UserInfo(uid: p.uid, nickname: p.nickname, custom: p.custom, joinedAt: p.joinedAt,
                 tracks: p.publishedTrackIds.compactMap { tracks[$0] })
    }

    /// Every user with tracks, in join order.
    var users: [UserInfo] {
        participants.values.filter { !$0.hidden }.sorted { ($0.joinedAt, $0.uid) < ($1.joinedAt, $1.uid) }.map(userInfo)
    }

    /// The tracks of hidden participants other than `uid` (announced in `hidden_tracks`).
    func hiddenTracks(except uid: String) -> [TrackInfo] {
        participants.values.filter { $0.hidden && $0.uid != uid }.sorted { $0.uid < $1.uid }
            .flatMap { p in p.publishedTrackIds.compactMap { tracks[$0] } }
    }

    var isEmpty: Bool { participants.isEmpty }

    // MARK: - Fan-out

    /// Sends `event` to every connected participant except `uid`.
    func broadcast(_ event: ServerEvent, except uid: String? = nil) {
        for p in participants.values where p.uid != uid { p.send(event) }
    }

    // MARK: - Closing

    /// The error a closed room answers `join` with; the manager retries on a new room.
    static let closedError = SignalError(.notFound, "channel is closed")

    /// Marks the room closed when nobody is in it (so a racing join goes to a new room).
    func closeWhenEmpty() async -> Bool {
        guard participants.isEmpty, !closed else { return closed }
        closed = true
        inbox.finish()
        if mediaPrepared { await media?.close() }
        return true
    }

    /// Closes the channel: every session ends with `reason`.
    func shutDown(reason: DisconnectReason) async {
        guard !closed else { return }
        closed = true
        inbox.finish()
        for p in Array(participants.values) { await end(p, reason: reason, message: "channel closed") }
        if mediaPrepared { await media?.close() }
        observer.roomBecameEmpty(key)
    }

    // MARK: - Server API

    /// Removes `uid` (server API kick); `false` when not present.
    func kickUser(uid: String, message: String?) async -> Bool {
        guard let p = participants[uid], !p.hidden else { return false }
        await end(p, reason: .kicked, message: message)
        return true
    }

    /// Delivers a custom message to `to` (everyone when nil/empty); returns how many got it.
    func deliverMessage(_ message: CustomMessage) -> Int {
        var count = 0
        let recipients = message.to.map(Set.init) ?? []
        for p in participants.values where !p.hidden && p.connection != nil && p.uid != message.from
            && (recipients.isEmpty || recipients.contains(p.uid)) {
            p.send(.message(message))
            count += 1
        }
        return count
    }

    /// Sends `caption` to every user (not to hidden participants: the captioner is one), on the
    /// data channel where it is open; the room's one stream keeps each speaker's captions in order.
    func captionToUsers(_ caption: Caption) -> Bool {
        for p in participants.values where !p.hidden { p.send(.caption(caption)) }
        return true
    }

    /// Sets channel metadata (server API) and tells everyone.
    func updateMetadata(_ value: String?) {
        metadata = value
        broadcast(.channelUpdated(info))
    }
}
