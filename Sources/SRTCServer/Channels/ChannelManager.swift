import SRTCProtocol
import Synchronization

/// Every live channel of every app. Creates a room on its first join and forgets it when the
/// last user leaves; answers the server API's channel routes.
public final class ChannelManager: Sendable {
    private let rooms = Mutex<[ChannelKey: ChannelRoom]>([:])
    /// Asked in order before every join and publish (the meeting backend may refuse); none admits
    /// all. Set once while the server is built: a list of modules, not a stored closure (see
    /// `CallbackSlot`); each room keeps the list it was made with.
    private let gatekeepers = Mutex<[any ServerModule]>([])
    let limits: ChannelLimits
    let mediaFactory: (@Sendable (ChannelKey) -> RoomMedia?)
    let events: ChannelEventSink
    /// The join limit counted across a cluster's nodes (`--redis-url`), on top of each room's own.
    let sharedJoins: ClusterJoinLimiter?
    /// Users connected in every room (a cluster node's load).
    private let participants = Atomic<Int>(0)

    init(limits: ChannelLimits, events: ChannelEventSink, sharedJoins: ClusterJoinLimiter? = nil,
         mediaFactory: @escaping @Sendable (ChannelKey) -> RoomMedia?) {
        self.sharedJoins = sharedJoins
        self.limits = limits
        self.events = events
        self.mediaFactory = mediaFactory
    }

    /// The room of `key`, created when absent.
    func room(for key: ChannelKey) -> ChannelRoom {
        let (room, created) = rooms.withLock { rooms -> (ChannelRoom, Bool) in
            if let r = rooms[key] { return (r, false) }
            let r = ChannelRoom(key: key, limits: limits, media: mediaFactory(key), observer: RoomObserverAdapter(manager: self),
                                modules: gatekeepers.withLock { $0 }, sharedJoins: sharedJoins)
            rooms[key] = r
            return (r, true)
        }
        if created { events.channelCreated(key) }
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
              iceServers: [ICEServer] = []) async -> Result<(ChannelRoom, JoinResponse), SignalError> {
        if await !admits(key, uid: claims.sub) {
            return .failure(SignalError(.permissionDenied, "not admitted to channel \(key.name)"))
        }
        for _ in 0..<3 {
            let room = room(for: key)
            switch await room.join(request, claims: claims, connection: connection, requestId: requestId, iceServers: iceServers) {
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
