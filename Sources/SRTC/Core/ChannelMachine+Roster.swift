import SRTCProtocol

// The users and tracks a channel knows: each server event (or a resume's difference) changes
// them and says what observers hear. A repeated or late event changes nothing and is not told.
extension ChannelMachine {
    // MARK: - Users

    mutating func userJoined(_ user: UserInfo) -> [Action] {
        guard user.uid != me?.uid else { return [] }
        var actions: [Action] = []
        if let index = users.firstIndex(where: { $0.uid == user.uid }) {
            users[index] = user
        } else {
            users.append(user)
            actions.append(.notify(.userJoined(user)))
        }
        for track in user.tracks { actions += trackAdded(track, uid: user.uid) }
        return actions
    }

    mutating func userUpdated(_ user: UserInfo) -> [Action] {
        guard let index = users.firstIndex(where: { $0.uid == user.uid }) else { return [] }
        users[index].nickname = user.nickname
        users[index].custom = user.custom
        return [.notify(.userUpdated(users[index]))]
    }

    /// A user left: its tracks are removed first, then what was kept to decrypt it is forgotten
    /// (a return starts afresh, as a new participant), then observers hear it.
    mutating func userLeft(uid: String, reason: DisconnectReason) -> [Action] {
        guard let user = users.first(where: { $0.uid == uid }) else { return [] }
        var actions: [Action] = []
        for track in user.tracks { actions += trackRemoved(track.id, uid: uid) }
        users.removeAll { $0.uid == uid }
        actions.append(.forgetE2EE(uid: uid))
        actions.append(.notify(.userLeft(uid: uid, reason: reason)))
        return actions
    }

    // MARK: - Tracks

    /// A track of a user, or of a hidden publisher (a server composite): a uid that is in no user
    /// list gets a `UserInfo` of its own, kept in `hiddenPublishers` and never in `users`.
    mutating func trackAdded(_ info: TrackInfo, uid: String) -> [Action] {
        guard !tracks.knows(info.id), uid != me?.uid else { return [] }
        let user = editPublisher(uid) { user in
            if !user.tracks.contains(where: { $0.id == info.id }) { user.tracks.append(info) }
        }
        return tracks.remoteAdded(info).map(Action.track) + [.notify(.trackAdded(info, by: user))]
    }

    mutating func trackUpdated(_ info: TrackInfo, uid: String) -> [Action] {
        guard users.contains(where: { $0.uid == uid }) || hiddenPublishers[uid] != nil else { return [] }
        let user = editPublisher(uid) { user in
            if let t = user.tracks.firstIndex(where: { $0.id == info.id }) { user.tracks[t] = info } else { user.tracks.append(info) }
        }
        return [.track(.updateRemoteTrack(info)), .notify(.trackUpdated(info, by: user))]
    }

    mutating func trackRemoved(_ trackId: String, uid: String) -> [Action] {
        let known = users.first(where: { $0.uid == uid }) ?? hiddenPublishers[uid]
        guard let t = known?.tracks.firstIndex(where: { $0.id == trackId }) else { return [] }
        var removed: TrackInfo?
        let user = editPublisher(uid) { removed = $0.tracks.remove(at: t) }
        guard let removed else { return [] }
        // A subscribed track's subscription ends before the track does.
        return tracks.remoteRemoved(trackId).map(Action.track) + [.notify(.trackRemoved(removed, by: user))]
    }

    /// Applies `change` to the user `uid`, or to the hidden publisher `uid` (made when absent, and
    /// forgotten once it has no track left); returns the result.
    private mutating func editPublisher(_ uid: String, _ change: (inout UserInfo) -> Void) -> UserInfo {
        if let index = users.firstIndex(where: { $0.uid == uid }) {
            change(&users[index])
            return users[index]
        }
        var hidden = hiddenPublishers[uid] ?? UserInfo(uid: uid, joinedAt: 0)
        change(&hidden)
        hiddenPublishers[uid] = hidden.tracks.isEmpty ? nil : hidden
        return hidden
    }

    // MARK: - Catching up after a resume

    /// Events dropped while the connection was down are replayed as the difference between the
    /// state we knew and the resume response. Users that left meanwhile are reported with
    /// `.clientLeave` (the real reason was not kept by the server); a user who left and came
    /// back (another `joined_at`) leaves and joins again.
    mutating func catchUp(with response: JoinResponse) -> [Action] {
        var actions: [Action] = []
        if info != response.channel {
            info = response.channel
            actions.append(.notify(.infoUpdated(response.channel)))
        }
        if me?.nickname != response.me.nickname || me?.custom != response.me.custom {
            me = response.me
            actions.append(.notify(.meUpdated(response.me)))
        }
        let fresh = Dictionary(response.users.map { ($0.uid, $0) }, uniquingKeysWith: { a, _ in a })
        for old in users where fresh[old.uid] == nil || fresh[old.uid]?.joinedAt != old.joinedAt {
            actions += userLeft(uid: old.uid, reason: .clientLeave)
        }
        for user in response.users {
            guard let old = users.first(where: { $0.uid == user.uid }) else {
                actions += userJoined(user)
                continue
            }
            if old.nickname != user.nickname || old.custom != user.custom { actions += userUpdated(user) }
            actions += catchUpTracks(of: user.uid, known: old.tracks, now: user.tracks)
        }
        // Hidden publishers (server composites): only their tracks, in uid order.
        let oldHidden = hiddenPublishers
        let freshHidden = Dictionary(grouping: response.hiddenTracks, by: \.uid)
        for uid in Set(oldHidden.keys).union(freshHidden.keys).sorted() {
            actions += catchUpTracks(of: uid, known: oldHidden[uid]?.tracks ?? [], now: freshHidden[uid] ?? [])
        }
        return actions
    }

    /// The difference between the tracks of `uid` we knew and those the server has now.
    private mutating func catchUpTracks(of uid: String, known: [TrackInfo], now: [TrackInfo]) -> [Action] {
        var actions: [Action] = []
        let newIds = Set(now.map(\.id))
        for track in known where !newIds.contains(track.id) { actions += trackRemoved(track.id, uid: uid) }
        for track in now {
            if let old = known.first(where: { $0.id == track.id }) {
                if old != track { actions += trackUpdated(track, uid: uid) }
            } else {
                actions += trackAdded(track, uid: uid)
            }
        }
        return actions
    }
}
