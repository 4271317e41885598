import Foundation
import SMeetingProtocol

// A meeting's live room outlives the node that runs it (docs/deploy.md, "Drain and failover"):
// on a cluster the room writes its `MeetingRoomRecord` after every change, and a room made from
// a record starts with its policies, lock, waiting-room switch, share, co-hosts and presenters,
// gives each returning member its devices, share, hand, chat and drawing states when it enters
// again, and puts each member that waited back in the waiting room.
extension MeetingRoom {
    /// The members in it, and those of the previous node's room not back yet (so a second move
    /// before they return does not lose their states).
    var record: MeetingRoomRecord {
        let away = returning.values.filter { members[$0.uid] == nil }.sorted { $0.uid < $1.uid }
        return MeetingRoomRecord(room: roomSnapshot, coHosts: coHosts.sorted(), presenters: presenters.sorted(), members: users + away,
                                 waiting: waitingList)
    }

    /// The live policies a previous node kept (lock, mute all, cameras off, self-unmute and
    /// self-camera rights, sharing disabled, the waiting room as last switched), who shares, and
    /// the room's start.
    static func restore(_ record: MeetingRoomRecord, into room: inout RoomInfo) {
        let kept = record.room
        room.muteAll = kept.muteAll
        room.allowSelfUnmute = kept.allowSelfUnmute
        room.cameraOffAll = kept.cameraOffAll
        room.allowSelfOpenCamera = kept.allowSelfOpenCamera
        room.shareDisabled = kept.shareDisabled
        room.locked = kept.locked
        room.waitingRoom = kept.waitingRoom
        // The share stays its sharer's while it comes back (nobody else may start one meanwhile);
        // its SRTC session publishes the screen again (`mayPublish` reads its kept share state).
        if let sharer = kept.sharingUid, record.members.contains(where: { $0.uid == sharer }) {
            room.sharingUid = sharer
            room.shareType = kept.shareType
        }
        room.startedAt = kept.startedAt
    }

    /// The states a member that was in the room on the previous node gets back on entering.
    func returningStates(of uid: String, into info: inout MeetingUserInfo) {
        guard let kept = returning.removeValue(forKey: uid) else { return }
        // Its devices stay as they were (its SRTC session, taken over too, publishes them again)
        // and so does its place in the list.
        info.micState = kept.micState
        info.cameraState = kept.cameraState
        // Its share (the room's, restored with it) and view capture go on.
        if room.sharingUid == uid { info.shareState = kept.shareState }
        info.viewCapture = kept.viewCapture
        info.trackDescs = Self.trackDescs(of: info)
        info.enteredAt = kept.enteredAt
        info.handRaised = kept.handRaised
        info.chatDisabled = kept.chatDisabled
        info.drawDisabled = kept.drawDisabled
    }

    /// The members of the previous node's room that did not enter again within the grace period
    /// of their sessions (the room's `returnTimer`, set when it was made from the record) exit `disconnected`, as they would have on that node (a
    /// share of theirs ends); those who entered again in time saw them in the room (their SDK keeps
    /// the members it knew). Those of its waiting room not back leave it (`left`).
    func expireReturning() {
        returnTimer = nil
        guard !closed else { return }
        let away = returning.values.filter { members[$0.uid] == nil }.sorted { $0.uid < $1.uid }
        returning = [:]
        if let sharer = room.sharingUid, away.contains(where: { $0.uid == sharer }) {
            room.sharingUid = nil
            room.shareType = 0
            broadcastRoom(["sharing"], by: nil)
        }
        for info in away { broadcast(.userExited, UserExitedEvent(user: info, reason: .disconnected)) }
        let gone = returningWaiters.values.sorted { ($0.since, $0.uid) < ($1.since, $1.uid) }
        returningWaiters = [:]
        for info in gone { broadcastAdmins(.waitingLeft, WaitingLeftEvent(user: info, reason: .left, by: nil)) }
        recordChanged()
        closeIfDeserted()
    }

    /// Something changed (every change sends an event): the record is written once the change
    /// is complete, after the actor's current job.
    func recordChanged() {
        guard records != nil, !recordPending, !closed else { return }
        recordPending = true
        Task { self.writeRecord() }
    }

    func writeRecord() {
        recordPending = false
        guard let records, !closed, let json = try? JSONEncoder().encode(record) else { return }
        records.save(record: json, key: MeetingRoomRecord.key(appId: appId, meetingId: meetingId))
    }

    /// The room emptied or ended: the next one starts over, as on a single node.
    func dropRecord() {
        records?.save(record: nil, key: MeetingRoomRecord.key(appId: appId, meetingId: meetingId))
    }
}
