import SRTCProtocol

/// The server API's channel operations, for modules: remove a user or close a channel from the
/// server side, exactly as `/server/v1/channel/kick` and `/server/v1/channel/close` do, and the
/// media authority of the module that owns a channel: server-side mutes and unpublishing.
public struct ChannelControl: Sendable {
    let manager: ChannelManager

    /// Removes `uid` from the live channel `key`: the user gets `disconnected` (`kicked`), the
    /// others `user_left`. Returns `false` when the channel is not live or the user not in it.
    @discardableResult
    public func kick(_ key: ChannelKey, uid: String, message: String? = nil) async -> Bool {
        guard let room = manager.existingRoom(key), await !room.closed else { return false }
        return await room.kick(uid: uid, message: message)
    }

    /// Closes the live channel `key`: every user gets `disconnected` (`channel_closed`).
    /// Returns `false` when it is not live.
    @discardableResult
    public func close(_ key: ChannelKey) async -> Bool {
        guard let room = manager.existingRoom(key), await !room.closed else { return false }
        await room.close(reason: .channelClosed)
        return true
    }

    /// Starts the server-side composite (MCU) of channel `key` published under `uid`, with the
    /// composite defaults of docs/egress.md; `false` when no module makes composites or it refused.
    @discardableResult
    public func startComposite(_ key: ChannelKey, uid: String) async -> Bool {
        for module in manager.modules {
            if let started = await module.startComposite(key, uid: uid) { return started }
        }
        return false
    }

    /// Stops that composite; `false` when there was none.
    @discardableResult
    public func stopComposite(_ key: ChannelKey, uid: String) async -> Bool {
        for module in manager.modules {
            if let stopped = await module.stopComposite(key, uid: uid) { return stopped }
        }
        return false
    }

    /// Every track published in the live channel `key`, hidden participants' too, by publisher and
    /// description; nil when the channel is not live.
    public func tracks(_ key: ChannelKey) async -> [TrackInfo]? {
        guard let room = manager.existingRoom(key), await !room.closed else { return nil }
        return await room.tracks.values.sorted { ($0.uid, $0.desc, $0.id) < ($1.uid, $1.desc, $1.id) }
    }

    /// The uids in the live channel `key` (empty when it is not live).
    public func users(_ key: ChannelKey) async -> [String] {
        guard let room = manager.existingRoom(key), await !room.closed else { return [] }
        return await room.users.map(\.uid)
    }

    /// Holds muted (or releases) every track `uid` publishes in `key` with `desc`: the SFU stops
    /// forwarding them at once, the others get `track_updated` (`muted: true`), the publisher
    /// `me_updated`; while held, the publisher's own unmute is refused (`policy_forbidden`) and
    /// new tracks with `desc` start muted. Releasing restores the publisher's own mute state.
    /// Returns `false` when the channel is not live or `uid` not in it.
    @discardableResult
    public func setMuted(_ key: ChannelKey, uid: String, desc: String, muted: Bool) async -> Bool {
        guard let room = manager.existingRoom(key) else { return false }
        return await room.hold(uid: uid, desc: desc, muted: muted)
    }

    /// Unpublishes every track `uid` publishes in `key` with `desc` (subscribers get
    /// `track_removed`). Returns how many tracks were removed.
    @discardableResult
    public func unpublish(_ key: ChannelKey, uid: String, desc: String) async -> Int {
        guard let room = manager.existingRoom(key) else { return 0 }
        return await room.unpublish(uid: uid, desc: desc)
    }

    /// Sends a live caption to every user of the live channel `key` (`caption` event,
    /// docs/protocol.md "Captions"), after every event sent before it. Returns `false` when the
    /// channel is not live.
    @discardableResult
    public func caption(_ key: ChannelKey, _ caption: Caption) async -> Bool {
        guard let room = manager.existingRoom(key) else { return false }
        return await room.caption(caption)
    }

    /// Starts live captions in channel `key` (docs/captions.md) through the module that runs them.
    /// - Throws: the module's refusal (`already_exists`, `not_found`, `invalid_parameter`, …), or
    ///   `wrong_state` when no module runs captions.
    public func startCaptions(_ key: ChannelKey, language: String?) async throws(ModuleRefusal) {
        for module in manager.modules {
            if let answer = await module.startCaptions(key, language: language) { return try answer.get() }
        }
        throw ModuleRefusal(.wrongState, "this server runs no captions")
    }

    /// Stops the captions of channel `key`.
    /// - Throws: the module's refusal (`wrong_state` when none run), or `wrong_state` when no module
    ///   runs captions.
    public func stopCaptions(_ key: ChannelKey) async throws(ModuleRefusal) {
        for module in manager.modules {
            if let answer = await module.stopCaptions(key) { return try answer.get() }
        }
        throw ModuleRefusal(.wrongState, "this server runs no captions")
    }

    /// Creates an RTMP ingress into channel `key` under `uid` (docs/ingress.md) through the module
    /// that runs ingresses.
    /// - Throws: the module's refusal (`already_exists`, `limit_reached`, …), or `wrong_state`
    ///   when no module runs ingresses.
    public func createIngress(_ key: ChannelKey, uid: String) async throws(ModuleRefusal) -> ModuleIngress {
        for module in manager.modules {
            if let answer = await module.createIngress(key, uid: uid) { return try answer.get() }
        }
        throw ModuleRefusal(.wrongState, "this server runs no ingress")
    }

    /// Deletes an ingress of channel `key` (a push in progress ends).
    public func deleteIngress(_ key: ChannelKey, ingressId: String) async throws(ModuleRefusal) {
        for module in manager.modules {
            if let answer = await module.deleteIngress(key, ingressId: ingressId) { return try answer.get() }
        }
        throw ModuleRefusal(.wrongState, "this server runs no ingress")
    }
}
