import SMeetingProtocol
import SRTCServer
import Synchronization

/// The live meetings of every app: a room is created on a meeting's first entry and forgotten
/// when it empties or ends.
final class MeetingRoomManager: Sendable {
    private struct Key: Hashable { let appId: String; let meetingId: String }
    private let rooms = Mutex<[Key: MeetingRoom]>([:])
    private let store: MeetingStore
    private let signer: ChannelGrantSigner
    private let channels: ChannelControl
    private let maxMembers: Int
    /// On a cluster: where rooms keep their records (`MeetingRoom+Record`).
    private let records: ClusterPlacement?
    /// How long a room made from a record waits for its previous members (their sessions' grace).
    private let returnSeconds: Int
    /// Every room's time and timers.
    private let clock: RoomClock

    init(store: MeetingStore, signer: ChannelGrantSigner, channels: ChannelControl, maxMembers: Int, records: ClusterPlacement? = nil,
         returnSeconds: Int = 20, clock: RoomClock = SystemRoomClock()) {
        self.clock = clock
        self.records = records
        self.returnSeconds = returnSeconds
        self.store = store
        self.signer = signer
        self.channels = channels
        self.maxMembers = maxMembers
    }

    /// The live room of a meeting, if any.
    func existing(appId: String, meetingId: String) -> MeetingRoom? {
        rooms.withLock { $0[Key(appId: appId, meetingId: meetingId)] }
    }

    /// The live room of `meeting`, created when absent (from `record`, the room's state on the
    /// node that ran it before, if any).
    func room(appId: String, meeting: MeetingInfo, record: MeetingRoomRecord? = nil) -> MeetingRoom {
        let key = Key(appId: appId, meetingId: meeting.meetingId)
        return rooms.withLock { rooms in
            if let r = rooms[key] { return r }
            let r = MeetingRoom(appId: appId, meeting: meeting, store: store, signer: signer, channels: channels, maxMembers: maxMembers,
                                records: records, record: record, returnSeconds: returnSeconds, clock: clock) { [weak self] room in
                self?.forget(room, key: key)
            }
            rooms[key] = r
            // A `.mix` meeting has a server-side composite from its start (the egress module makes it).
            if meeting.mode == .mix {
                Task { [channels] in await channels.startComposite(r.channelKey, uid: MeetingMode.mixCompositeUid) }
            }
            return r
        }
    }

    private func forget(_ room: MeetingRoom, key: Key) {
        let removed = rooms.withLock { rooms -> Bool in
            guard rooms[key] === room else { return false }
            rooms[key] = nil
            return true
        }
        if removed { Task { [channels] in await channels.stopComposite(room.channelKey, uid: MeetingMode.mixCompositeUid) } }
    }

    /// Live rooms (shutdown).
    var all: [MeetingRoom] { rooms.withLock { Array($0.values) } }
}
