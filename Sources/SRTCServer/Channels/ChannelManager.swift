import RTCNet
import SRTCProtocol
import Synchronization

/// Every live channel of every app. Creates a room on its first join and forgets it when the
/// last user leaves; answers the server API's channel routes.
public final class ChannelManager: Sendable {
    private let rooms = Mutex<[ChannelKey: ChannelRoom]>([:])
    /// Channels this node handed to the cluster while draining: a late join is sent back to retry.
    private let handedOff = Mutex<Set<ChannelKey>>([])
    /// Set once this node hands its channels off (drain): new signaling sessions go elsewhere.
    private let handingOff = Atomic<Bool>(false)

    /// Whether this node drained its channels away and takes no new signaling sessions.
    var handsOff: Bool { handingOff.load(ordering: .relaxed) }
    /// Asked in order before every join and publish (the meeting backend may refuse); none admits
    /// all. Set once while the server is built: a list of modules, not a stored closure (see
    /// `CallbackSlot`); each room keeps the list it was made with.
    private let gatekeepers = Mutex<[any ServerModule]>([])
    let limits: ChannelLimits
    let mediaFactory: (@Sendable (ChannelKey) -> RoomMedia?)
    let events: ChannelEventSink
    /// Every room's session timers (grace periods, token expiry).
    let timers = TimerQueue(label: "srtc-channel-timers")
    /// Joins per remote IP address, across channels.
    private let addressJoins: KeyedRateLimiter<SocketAddress>
    /// The join limit counted across a cluster's nodes (`--redis-url`), on top of each room's own.
    let sharedJoins: ClusterJoinLimiter?
    /// Users connected in every room (a cluster node's load).
    private let participants = Atomic<Int>(0)
    /// Where rooms keep their records for the channel's next node (`--redis-url`).
    let records: RoomRecordStore?

    init(limits: ChannelLimits, events: ChannelEventSink, sharedJoins: ClusterJoinLimiter? = nil, records: RoomRecordStore? = nil,
         mediaFactory: @escaping @Sendable (ChannelKey) -> RoomMedia?) {
        self.sharedJoins = sharedJoins
        self.records = records
        self.limits = limits
        self.events = events
        self.mediaFactory = mediaFactory
        addressJoins = KeyedRateLimiter(ratePerSecond: limits.addressJoinsPerSecond)
    }

    /// Takes one join from `address`'s allowance (`--address-joins-per-second`); `false`: refuse
    /// with `rate_limited`. Checked before the token, so a flood of bad joins is cheap to refuse.
    func admitsJoin(from address: SocketAddress?) -> Bool {
        guard let address else { return true }
        return addressJoins.admits(address.with(port: 0))
    }

    /// The room of `key`, created when absent.
    func room(for key: ChannelKey) -> ChannelRoom {
        let (room, created) = rooms.withLock { rooms -> (ChannelRoom, Bool) in
            if let r = rooms[key] { return (r, false) }
            let r = ChannelRoom(key: key, limits: limits, media: mediaFactory(key), observer: RoomObserverAdapter(manager: self),
                                clock: SystemRoomClock(timers: timers), modules: gatekeepers.withLock { $0 },
                                sharedJoins: sharedJoins, records: records)
            rooms[key] = r
            return (r, true)
        }
        // On a cluster the room tells once it knows whether it continues a moved channel
        // (`channelOpened`): a channel that moved between nodes is created once.
        if created, records == nil { events.channelCreated(key) }
        return room
    }

    /// The room of `key` if it exists.
    func existingRoom(_ key: ChannelKey) -> ChannelRoom? {
        rooms.withLock { $0[key] }
    }

    /// Channels of `appId`, sorted by name.
    func rooms(of appId: String) -> [ChannelRoom] {
        rooms.withLock { $0.filter { $0.key.appId == appId }.sorted { $0.key.name < $1.key.name }.map(\.value) }
    }

    /// Number of live channels (metrics).
    var count: Int { rooms.withLock { $0.count } }

    /// The channels this node runs.
    var keys: [ChannelKey] { rooms.withLock { Array($0.keys) } }

    /// Users connected now, over every room.
    var participantCount: Int { participants.load(ordering: .relaxed) }

    fileprivate func forgetIfEmpty(_ key: ChannelKey) {
        Task {
            guard let room = existingRoom(key), await room.closeIfEmpty() else { return }
            let removed = rooms.withLock { rooms -> Bool in
                guard rooms[key] === room else { return false }
                rooms[key] = nil
                return true
            }
            if removed { events.channelClosed(key) }
        }
    }

    /// The server's modules (gatekeepers of joins, makers of composites).
    var modules: [any ServerModule] { gatekeepers.withLock { $0 } }

    /// Installs the modules asked before every join; the first with a verdict decides.
    func setGatekeepers(_ modules: [any ServerModule]) {
        gatekeepers.withLock { $0 = modules }
    }

    /// Whether `uid` may join `key`: the first module with a say decides; none admits.
    func admits(_ key: ChannelKey, uid: String) async -> Bool {
        for module in gatekeepers.withLock({ $0 }) {
            if let verdict = await module.admits(key, uid: uid) { return verdict }
        }
        return true
    }

    /// Joins `key`, retrying on a fresh room when the one found closed itself meanwhile (it emptied
    /// between lookup and join). On success the room has queued the `joined` response to `requestId`.
    func join(_ key: ChannelKey, _ request: JoinRequest, claims: TokenClaims, connection: SignalConnection, requestId: Int?,
              iceServers: [ICEServer] = [], sealKey: String? = nil) async -> Result<(ChannelRoom, JoinResponse), SignalError> {
        // Hidden participants carry a token only the server mints (egress workers); modules do not gate them.
        if claims.grant?.hidden != true, await !admits(key, uid: claims.sub) {
            return .failure(SignalError(.permissionDenied, "not admitted to channel \(key.name)"))
        }
        for _ in 0..<3 {
            if handedOff.withLock({ $0.contains(key) }) {
                return .failure(SignalError(.internalError, "channel \(key.name) moved to another node; retry"))
            }
            let room = room(for: key)
            switch await room.join(request, claims: claims, connection: connection, requestId: requestId, iceServers: iceServers, sealKey: sealKey) {
            case .success(let response): return .success((room, response))
            case .failure(let error) where error == ChannelRoom.closedError:
                rooms.withLock { if $0[key] === room { $0[key] = nil } }
                continue
            case .failure(let error): return .failure(error)
            }
        }
        return .failure(SignalError(.internalError, "channel is closing; retry"))
    }

    /// Ends every session (server shutdown).
    func closeAll() async {
        for room in rooms.withLock({ Array($0.values) }) { await room.close(reason: .serverShutdown) }
    }

    /// Hands every channel to the cluster (this node drains): each room's record is saved as it
    /// is now, `release` gives up the channel's owner entry (so the next join places it on
    /// another node), then the room's clients are told to reconnect (`ChannelRoom.handOff`).
    func handOffAll(release: @escaping @Sendable (ChannelKey) async -> Void) async {
        let records = self.records
        handingOff.store(true, ordering: .relaxed)
        for room in rooms.withLock({ Array($0.values) }) {
            handedOff.withLock { _ = $0.insert(room.key) }
            // One job: nothing changes the room between its last record and its clients' notice.
            await room.perform(ifClosed: ()) { room in
                room.handedOff = true
                let record = room.record
                records?.save(room.key, record.sessions.isEmpty ? nil : record)
                await release(room.key)
                _ = await room.handOff()
            }
            rooms.withLock { if $0[room.key] === room { $0[room.key] = nil } }
        }
    }

    private struct RoomObserverAdapter: RoomObserver {
        weak let manager: ChannelManager?
        func userJoined(room: ChannelKey, uid: String) {
            manager?.participants.add(1, ordering: .relaxed)
            manager?.events.userJoined(room, uid: uid)
        }
        func userLeft(room: ChannelKey, uid: String, reason: DisconnectReason) {
            manager?.participants.subtract(1, ordering: .relaxed)
            manager?.events.userLeft(room, uid: uid, reason: reason)
        }
        func sessionResumed(room: ChannelKey, uid: String) {}
        func trackPublished(room: ChannelKey, uid: String, track: TrackInfo) { manager?.events.trackPublished(room, uid: uid, track: track) }
        func trackUnpublished(room: ChannelKey, uid: String, track: TrackInfo) { manager?.events.trackUnpublished(room, uid: uid, track: track) }
        func roomBecameEmpty(_ room: ChannelKey) { manager?.forgetIfEmpty(room) }
        func sessionAdopted(room: ChannelKey, uid: String) { manager?.participants.add(1, ordering: .relaxed) }
        func sessionHandedOff(room: ChannelKey, uid: String) { manager?.participants.subtract(1, ordering: .relaxed) }
        func channelOpened(room: ChannelKey, takenOver: Bool) { if !takenOver { manager?.events.channelCreated(room) } }
    }
}

/// Lifecycle events of channels (the webhook dispatcher implements it).
protocol ChannelEventSink: Sendable {
    func channelCreated(_ key: ChannelKey)
    func channelClosed(_ key: ChannelKey)
    func userJoined(_ key: ChannelKey, uid: String)
    func userLeft(_ key: ChannelKey, uid: String, reason: DisconnectReason)
    func trackPublished(_ key: ChannelKey, uid: String, track: TrackInfo)
    func trackUnpublished(_ key: ChannelKey, uid: String, track: TrackInfo)
}
