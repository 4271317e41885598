import SRTCProtocol

/// The server-side mutes a module (the meeting backend) put on a channel's media: which track
/// descriptions of which user are held muted, and what each publisher asked for itself, so that
/// lifting a hold restores the publisher's own choice. A value owned by its `ChannelRoom`.
///
/// A hold is by `(uid, desc)`, not by track: a track that is being published while the hold is
/// set (the module allowed it a moment before) starts muted too.
struct MediaHolds {
    /// uid → descs held muted.
    private var held: [String: Set<String>] = [:]
    /// Track id → the publisher's own mute state (`publish` / `mute`).
    private var ownMuted: [String: Bool] = [:]

    /// Whether `uid`'s tracks with `desc` are held muted.
    func isHeld(uid: String, desc: String) -> Bool {
        held[uid]?.contains(desc) ?? false
    }

    /// Holds or releases `(uid, desc)`; `false` when nothing changed.
    mutating func set(uid: String, desc: String, held isHeld: Bool) -> Bool {
        if isHeld {
            return held[uid, default: []].insert(desc).inserted
        }
        guard held[uid]?.remove(desc) != nil else { return false }
        if held[uid]?.isEmpty == true { held[uid] = nil }
        return true
    }

    /// Records the publisher's own mute state of a track.
    mutating func setOwn(trackId: String, muted: Bool) {
        ownMuted[trackId] = muted
    }

    /// The publisher's own mute state (`false` when never set).
    func own(trackId: String) -> Bool {
        ownMuted[trackId] ?? false
    }

    /// What the SFU applies: held, or muted by its publisher.
    func effectiveMuted(_ track: TrackInfo) -> Bool {
        isHeld(uid: track.uid, desc: track.desc) || own(trackId: track.id)
    }

    /// Forgets a removed track.
    mutating func forget(trackId: String) {
        ownMuted[trackId] = nil
    }

    /// Forgets a user that left (a later session starts without holds; the module refuses
    /// what it must at `publish`).
    mutating func forget(uid: String) {
        held[uid] = nil
    }
}
