import SRTCProtocol

/// The media authority of the module that owns a channel (the meeting backend): it is asked
/// before a `publish`, and it can hold a user's tracks muted or remove them, whatever the
/// publisher's client does. The SFU stops forwarding a held track at once; everyone else gets
/// `track_updated`, the publisher `me_updated`.
extension ChannelRoom {
    /// The first refusal of `tracks`: for each track the first module with a say decides. A track
    /// allowed held (`PublishVerdict.allowHeld`) is held from now on, as `applyHold` would.
    func publishRefusal(_ tracks: [PublishTrack], uid: String) async -> SignalError? {
        for track in tracks {
            for module in modules {
                guard let verdict = await module.mayPublish(key, uid: uid, track: track) else { continue }
                switch verdict {
                case .refuse(let message): return SignalError(.policyForbidden, message)
                // Held before `applyingHolds` reads the holds: the track starts muted at the SFU.
                case .allowHeld: _ = holds.set(uid: uid, desc: track.desc, held: true)
                case .allow: break
                }
                break
            }
        }
        return nil
    }

    /// `tracks` as the SFU must produce them: a held description starts muted.
    func applyingHolds(_ tracks: [PublishTrack], uid: String) -> [PublishTrack] {
        tracks.map { t in
            var t = t
            t.muted = t.muted || holds.isHeld(uid: uid, desc: t.desc)
            return t
        }
    }

    /// Records a new track's own mute state and applies a hold set while it was being published.
    func startHeldIfNeeded(_ info: inout TrackInfo, producedMuted: Bool, of p: Participant) async {
        holds.setOwn(trackId: info.id, muted: info.muted)
        info.muted = holds.effectiveMuted(info)
        if info.muted != producedMuted { await p.media?.setMuted(trackId: info.id, muted: info.muted) }
    }

    // MARK: - Entry points (through the inbox, like every change)

    /// Holds (or releases) every track `uid` publishes with `desc` (`applyHold`).
    nonisolated func hold(uid: String, desc: String, muted: Bool) async -> Bool {
        await perform(ifClosed: false) { await $0.applyHold(uid: uid, desc: desc, muted: muted) }
    }

    /// Removes every track `uid` publishes with `desc` (`removeTracks`).
    nonisolated func unpublish(uid: String, desc: String) async -> Int {
        await perform(ifClosed: 0) { await $0.removeTracks(uid: uid, desc: desc) }
    }

    // MARK: - Inside the room's jobs

    /// Holds (or releases) every track `uid` publishes with `desc`, and the ones it publishes
    /// later while held. Releasing restores the publisher's own mute state. `false` when `uid`
    /// is not in the channel.
    func applyHold(uid: String, desc: String, muted: Bool) async -> Bool {
        guard let p = participants[uid], !closed else { return false }
        guard holds.set(uid: uid, desc: desc, held: muted) else { return true }
        var changed = false
        for id in p.publishedTrackIds {
            guard var track = tracks[id], track.desc == desc else { continue }
            let effective = holds.effectiveMuted(track)
            guard track.muted != effective else { continue }
            track.muted = effective
            tracks[id] = track
            changed = true
            // The SFU first, so that whoever sees the event also sees no more packets.
            await p.media?.setMuted(trackId: id, muted: effective)
            broadcast(.trackUpdated(TrackEvent(uid: uid, track: track)), except: uid)
        }
        if changed, participants[uid] === p { p.send(.meUpdated(userInfo(p))) }
        return true
    }

    /// Removes every track `uid` publishes with `desc` (subscribers get `track_removed`, the
    /// publisher `track_removed` and `me_updated`). Returns how many were removed.
    func removeTracks(uid: String, desc: String) async -> Int {
        guard let p = participants[uid], !closed else { return 0 }
        let ids = p.publishedTrackIds.filter { tracks[$0]?.desc == desc }
        for id in ids {
            _ = try? await p.media?.unpublish(trackId: id, offer: nil)
            await removeTrack(id, of: p, notifyPublisher: true)
        }
        if !ids.isEmpty, participants[uid] === p { p.send(.meUpdated(userInfo(p))) }
        return ids.count
    }
}
