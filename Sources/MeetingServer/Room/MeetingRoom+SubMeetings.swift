import RTCCrypto
import SMeetingProtocol

/// One sub-meeting (breakout room) of a live meeting.
struct SubMeeting {
    let id: String
    var title: String
    var status: SubMeetingStatus
    /// Assigned members, in the order they were assigned.
    var assigned: [String]
    var closesAt: Int64?

    var info: SubMeetingInfo { SubMeetingInfo(subMeetingId: id, title: title, status: status, members: assigned, closesAt: closesAt) }
}

/// Sub-meetings: the host (or a co-host) creates them, assigns members by hand or at random,
/// opens them (members move: out of the main meeting's channel into their sub-meeting's, still
/// in the meeting), broadcasts to them, visits them, hears calls for help, and closes them with
/// a countdown after which everyone is back in the main meeting. A move closes the member's
/// microphone, camera and sharing: it starts over in the new channel.
extension MeetingRoom {
    static let maxSubMeetings = 50
    static let maxCloseCountdown = 300
    static let defaultCloseCountdown = 10

    var subMeetingInfos: [SubMeetingInfo] { subMeetings.map(\.info) }

    private func subMeetingIndex(_ id: String) throws(MeetingErrorBody) -> Int {
        guard let index = subMeetings.firstIndex(where: { $0.id == id }) else { throw MeetingErrorBody(.notFound, "no sub-meeting \(id.prefix(64))") }
        return index
    }

    private func subMeetingsChanged() -> SubMeetingsEvent {
        let event = SubMeetingsEvent(subMeetings: subMeetingInfos)
        broadcast(.subMeetingsChanged, event)
        return event
    }

    /// Creates one sub-meeting per title (at most 50 in all).
    func createSubMeetings(_ uid: String, titles: [String]) throws(MeetingErrorBody) -> SubMeetingsEvent {
        _ = try admin(uid)
        guard !titles.isEmpty, subMeetings.count + titles.count <= Self.maxSubMeetings else {
            throw MeetingValidation.invalid("titles must name 1 to \(Self.maxSubMeetings - subMeetings.count) sub-meetings")
        }
        for title in titles {
            guard !title.isEmpty, title.count <= 64, !MeetingValidation.hasControl(title) else {
                throw MeetingValidation.invalid("a sub-meeting title is 1 to 64 characters without control characters")
            }
        }
        for title in titles {
            subMeetings.append(SubMeeting(id: "S\(nextSubMeetingNumber)", title: title, status: .created, assigned: []))
            nextSubMeetingNumber += 1
        }
        return subMeetingsChanged()
    }

    /// Assigns members to a sub-meeting (out of any other); in an open sub-meeting they move now.
    func assignSubMeeting(_ uid: String, _ req: AssignSubMeetingReq) throws(MeetingErrorBody) -> SubMeetingsEvent {
        _ = try admin(uid)
        let index = try subMeetingIndex(req.subMeetingId)
        for target in req.uids {
            guard let m = members[target] else { throw MeetingErrorBody(.notFound, "\(target.prefix(64)) is not in the meeting") }
            guard m.info.role == .member else { throw MeetingValidation.invalid("hosts and co-hosts visit sub-meetings instead of being assigned") }
        }
        for target in req.uids { assign(target, to: index) }
        moveAssigned(by: uid)
        return subMeetingsChanged()
    }

    /// Assigns every member not yet assigned, shuffled, to the sub-meetings with the fewest members.
    func assignSubMeetingsRandomly(_ uid: String) throws(MeetingErrorBody) -> SubMeetingsEvent {
        _ = try admin(uid)
        guard !subMeetings.isEmpty else { throw MeetingErrorBody(.wrongState, "create sub-meetings first") }
        let assigned = Set(subMeetings.flatMap(\.assigned))
        var pool = members.values.filter { $0.info.role == .member && !assigned.contains($0.info.uid) }.map(\.info.uid).sorted()
        // Fisher–Yates with the secure generator the server uses for ids.
        for i in pool.indices.reversed() where i > 0 { pool.swapAt(i, Int(SecureRandom.uint32() % UInt32(i + 1))) }
        for target in pool {
            let smallest = subMeetings.indices.min { subMeetings[$0].assigned.count < subMeetings[$1].assigned.count }!
            assign(target, to: smallest)
        }
        moveAssigned(by: uid)
        return subMeetingsChanged()
    }

    private func assign(_ target: String, to index: Int) {
        for i in subMeetings.indices { subMeetings[i].assigned.removeAll { $0 == target } }
        subMeetings[index].assigned.append(target)
    }

    /// Opens every sub-meeting: assigned members move into them.
    func openSubMeetings(_ uid: String) throws(MeetingErrorBody) -> SubMeetingsEvent {
        _ = try admin(uid)
        guard !subMeetings.isEmpty else { throw MeetingErrorBody(.wrongState, "create sub-meetings first") }
        guard subMeetingsClosing == nil else { throw MeetingErrorBody(.wrongState, "the sub-meetings are closing") }
        for i in subMeetings.indices { subMeetings[i].status = .open }
        moveAssigned(by: uid)
        return subMeetingsChanged()
    }

    /// Moves every member assigned to an open sub-meeting who is elsewhere.
    private func moveAssigned(by admin: String) {
        for sub in subMeetings where sub.status == .open {
            for target in sub.assigned where members[target] != nil && members[target]?.info.subMeetingId != sub.id {
                move(target, to: sub.id, by: admin, notify: true)
            }
        }
    }

    /// Moves a member to a sub-meeting (or back to the main meeting with `nil`): its devices and
    /// sharing close, it leaves the old channel (removed from it), and with `notify` it gets
    /// `sub_meeting_moved` with a token for the new one.
    @discardableResult
    func move(_ uid: String, to subId: String?, by admin: String?, notify: Bool) -> SubMeetingMovedEvent? {
        guard let m = members[uid], m.info.subMeetingId != subId,
              let rtc = try? signer.grant(appId: appId, uid: uid, channel: channelKey(for: subId).name) else { return nil }
        let oldKey = channelKey(for: m.info.subMeetingId)
        endShares(uid, by: admin)
        update(uid, ["mic_state", "camera_state", "sub_meeting_id"], by: admin) {
            $0.micState = .off
            $0.cameraState = .off
            $0.subMeetingId = subId
        }
        commands.enqueue(.kick(oldKey, uid: uid, message: "moved to another part of the meeting"))
        let event = SubMeetingMovedEvent(subMeeting: subId.flatMap { id in subMeetings.first { $0.id == id }?.info }, rtc: rtc)
        if notify { m.connection.send(.subMeetingMoved, event) }
        return event
    }

    /// A text for everyone in the meeting, in every sub-meeting and the main meeting.
    func broadcastSubMeetings(_ uid: String, text: String, messageId: String) throws(MeetingErrorBody) {
        let a = try admin(uid)
        guard subMeetings.contains(where: { $0.status != .created }) else { throw MeetingErrorBody(.wrongState, "no sub-meeting is open") }
        guard !text.isEmpty, text.count <= MeetingValidation.maxChatCharacters else {
            throw MeetingErrorBody(.payloadTooLarge, "text must be 1 to \(MeetingValidation.maxChatCharacters) characters")
        }
        let message = ChatMessage(messageId: messageId, from: uid, fromNickname: a.info.nickname, to: nil, text: text, timestamp: clock.now())
        broadcast(.subMeetingBroadcast, ChatEvent(message: message), except: uid)
    }

    /// A host or co-host goes into an open sub-meeting, or back to the main meeting (`nil`).
    func visitSubMeeting(_ uid: String, _ subId: String?) throws(MeetingErrorBody) -> SubMeetingMovedEvent {
        let a = try admin(uid)
        if let subId {
            let index = try subMeetingIndex(subId)
            guard subMeetings[index].status != .created else { throw MeetingErrorBody(.wrongState, "sub-meeting \(subId) is not open") }
        }
        guard a.info.subMeetingId != subId else { throw MeetingErrorBody(.wrongState, "already there") }
        guard let event = move(uid, to: subId, by: nil, notify: false) else { throw MeetingErrorBody(.internalError, "cannot grant the channel") }
        return event
    }

    /// A member in a sub-meeting calls for help: hosts and co-hosts get `sub_meeting_help`.
    func requestSubMeetingHelp(_ uid: String) throws(MeetingErrorBody) {
        let me = try member(uid)
        guard let subId = me.info.subMeetingId else { throw MeetingErrorBody(.wrongState, "not in a sub-meeting") }
        broadcastAdmins(.subMeetingHelp, SubMeetingHelpEvent(uid: uid, subMeetingId: subId))
    }

    /// Closes the sub-meetings after `countdown` seconds: everyone returns to the main meeting.
    func closeSubMeetings(_ uid: String, countdown: Int?) throws(MeetingErrorBody) -> SubMeetingsEvent {
        _ = try admin(uid)
        let seconds = countdown ?? Self.defaultCloseCountdown
        guard (0...Self.maxCloseCountdown).contains(seconds) else { throw MeetingValidation.invalid("countdown must be 0 to \(Self.maxCloseCountdown) seconds") }
        guard subMeetings.contains(where: { $0.status == .open }) else { throw MeetingErrorBody(.wrongState, "no sub-meeting is open") }
        guard subMeetingsClosing == nil else { throw MeetingErrorBody(.wrongState, "the sub-meetings are already closing") }
        let closesAt = clock.now() + Int64(seconds) * 1000
        for i in subMeetings.indices {
            subMeetings[i].status = .closing
            subMeetings[i].closesAt = closesAt
        }
        broadcast(.subMeetingsClosing, SubMeetingsClosingEvent(countdown: seconds, closesAt: closesAt))
        let event = subMeetingsChanged()
        subMeetingsClosing = schedule(at: closesAt) { room in room.finishClosingSubMeetings() }
        return event
    }

    /// The countdown ended: everyone returns to the main meeting; the sub-meetings' channels close.
    func finishClosingSubMeetings() {
        guard subMeetingsClosing != nil, !closed else { return }
        subMeetingsClosing = nil
        for m in members.values.sorted(by: { $0.info.enteredAt < $1.info.enteredAt }) where m.info.subMeetingId != nil {
            move(m.info.uid, to: nil, by: nil, notify: true)
        }
        endSubMeetingIngresses()
        for sub in subMeetings { commands.enqueue(.close(channelKey(for: sub.id))) }
        subMeetings = []
        broadcast(.subMeetingsClosed, EmptyPayload())
        _ = subMeetingsChanged()
    }
}
