import SRTCProtocol

/// The publication and subscription rules of one channel, without I/O: which local tracks are
/// published (and under which server id), which remote tracks exist and which of them this app
/// subscribed to at which layer, and what a server event or an answered request changes on
/// them. `ChannelMachine` owns it (`tracks`) and passes it the server events about tracks and
/// the answers to the app's publish, unpublish, subscribe and layer requests; `Channel` sends the
/// requests and carries out the actions on the track objects (`Channel+Tracks`).
///
/// A request is recorded once the server answered it: the app's calls check against the
/// machine first (`checkPublish`, `publication(of:)`, `checkLayerSwitch`) and report the
/// answer as an event.
struct TrackMachine: Sendable, Equatable {
    // MARK: - Types

    /// Identifies a `LocalTrack` object (its `ObjectIdentifier`; the driver holds the object
    /// while it is published, so the identifier is not reused meanwhile).
    typealias LocalKey = ObjectIdentifier

    /// A local track published in the channel.
    struct Publication: Sendable, Equatable {
        let local: LocalKey
        /// Kind and description: how a track answered under another id after a move is recognised.
        let kind: TrackKind, desc: String
    }

    /// A remote track this app subscribed to.
    struct Subscription: Sendable, Equatable {
        /// The simulcast layer asked for (nil: the best, or not simulcast).
        let layer: VideoLayer?
    }

    /// What the server answered to one of the app's requests.
    enum Event: Sendable, Equatable {
        /// `publish` answered: `local` is published as `info`.
        case published(TrackInfo, local: LocalKey)
        /// `unpublish` of `trackId` answered.
        case unpublished(trackId: String)
        /// `subscribe` answered (or a CDN track switched on), at `layer` (nil: the best).
        case subscribed(trackId: String, layer: VideoLayer?)
        /// `unsubscribe` answered (or a CDN track switched off).
        case unsubscribed(trackId: String)
        /// `set_layer` answered (`switchLayer`, or adaptive stream's choice): the layer asked for
        /// now (nil: the best).
        case layerRequested(trackId: String, layer: VideoLayer?)
        /// After a move, the publish of every local track answered with these tracks.
        case republished([TrackInfo])
    }

    /// What the channel does to its track objects, in this order.
    enum Action: Sendable, Equatable {
        /// Make the remote track object of `info` (and wake whoever waits for it).
        case addRemoteTrack(TrackInfo)
        /// Give the remote track object its new info.
        case updateRemoteTrack(TrackInfo)
        /// End the remote track object (its subscription ended first, by `endSubscription`).
        case removeRemoteTrack(trackId: String)
        /// The remote track is received now, at `layer` (nil: the best).
        case startSubscription(trackId: String, layer: VideoLayer?)
        /// The remote track is no longer received.
        case endSubscription(trackId: String)
        /// The simulcast layer asked for of a subscribed track (nil: the best).
        case setRequestedLayer(trackId: String, layer: VideoLayer?)
        /// The layer the server now sends of a subscribed video track.
        case setCurrentLayer(trackId: String, layer: String)
        /// Dynacast: encode only these layers of my track.
        case setNeededLayers(LayersNeeded)
        /// The local track object just published is bound to `info` (its server id).
        case bindLocalTrack(TrackInfo)
        /// The local track published as `trackId` is no longer published here.
        case unbindLocalTrack(trackId: String)
        /// After a move the server gave the local track of `from` another id: bind it to `to`.
        case rebindLocalTrack(from: String, to: TrackInfo)
    }

    // MARK: - State

    /// Whether `layers_needed` is followed (`SRTCEngine.Configuration.dynacast`).
    let dynacast: Bool
    /// My published tracks by server id.
    private(set) var publications: [String: Publication] = [:]
    /// The tracks that have a remote track object in `Channel`.
    private(set) var remote: Set<String> = []
    /// The remote tracks this app subscribed to, by track id.
    private(set) var subscriptions: [String: Subscription] = [:]

    init(dynacast: Bool = true) {
        self.dynacast = dynacast
    }

    // MARK: - The app's calls, before a request

    /// `publishLocalTrack`: a track is published once per channel.
    func checkPublish(_ local: LocalKey) throws(SRTCError) {
        guard !publications.values.contains(where: { $0.local == local }) else {
            throw .wrongState("the track is already published in this channel")
        }
    }

    /// `unpublishLocalTrack`: the server id of `local`, which must be published here.
    func publication(of local: LocalKey) throws(SRTCError) -> String {
        guard let id = publications.first(where: { $0.value.local == local })?.key else {
            throw .wrongState("the track is not published in this channel")
        }
        return id
    }

    /// `switchLayer`: only a subscribed track switches layers.
    func checkLayerSwitch(_ trackId: String) throws(SRTCError) {
        guard subscriptions[trackId] != nil else { throw .wrongState("track \(trackId) is not subscribed") }
    }

    /// The subscribed tracks, in id order (the ticker watches their video).
    var subscribedIds: [String] { subscriptions.keys.sorted() }

    // MARK: - Answers

    /// Takes one answered request and returns what to do.
    mutating func handle(_ event: Event) -> [Action] {
        switch event {
        case .published(let info, let local):
            publications[info.id] = Publication(local: local, kind: info.kind, desc: info.desc)
            return [.bindLocalTrack(info)]
        case .unpublished(let trackId):
            return publications.removeValue(forKey: trackId) == nil ? [] : [.unbindLocalTrack(trackId: trackId)]
        case .subscribed(let trackId, let layer):
            // A track removed while the request was under way stays unsubscribed.
            guard remote.contains(trackId) else { return [] }
            subscriptions[trackId] = Subscription(layer: layer)
            return [.startSubscription(trackId: trackId, layer: layer)]
        case .unsubscribed(let trackId):
            guard remote.contains(trackId) else { return [] }
            subscriptions[trackId] = nil
            return [.endSubscription(trackId: trackId)]
        case .layerRequested(let trackId, let layer):
            guard subscriptions[trackId] != nil else { return [] }
            subscriptions[trackId] = Subscription(layer: layer)
            return [.setRequestedLayer(trackId: trackId, layer: layer)]
        case .republished(let answered):
            return republished(answered)
        }
    }

    /// The server keeps a moved track's id unless the track was gone there: a track answered
    /// under another id (matched by kind and description, in id order) is bound to it.
    private mutating func republished(_ answered: [TrackInfo]) -> [Action] {
        let before = publications.sorted { $0.key < $1.key }
        var actions: [Action] = []
        for info in answered {
            guard let old = before.first(where: { $0.value.desc == info.desc && $0.value.kind == info.kind }),
                  old.key != info.id, publications[old.key] != nil else { continue }
            publications[old.key] = nil
            publications[info.id] = Publication(local: old.value.local, kind: info.kind, desc: info.desc)
            actions.append(.rebindLocalTrack(from: old.key, to: info))
        }
        return actions
    }

    // MARK: - Server events

    /// A remote track appeared (a user's, or a hidden publisher's); once per id.
    mutating func remoteAdded(_ info: TrackInfo) -> [Action] {
        remote.insert(info.id).inserted ? [.addRemoteTrack(info)] : []
    }

    /// A remote track went: its subscription ends first.
    mutating func remoteRemoved(_ trackId: String) -> [Action] {
        guard remote.remove(trackId) != nil else { return [] }
        let ended: [Action] = subscriptions.removeValue(forKey: trackId) == nil ? [] : [.endSubscription(trackId: trackId)]
        return ended + [.removeRemoteTrack(trackId: trackId)]
    }

    /// The server ended a subscription (`subscription_ended`, for example `codec_unsupported`).
    mutating func subscriptionEnded(_ trackId: String) -> [Action] {
        guard remote.contains(trackId) else { return [] }
        subscriptions[trackId] = nil
        return [.endSubscription(trackId: trackId)]
    }

    /// `layers_needed` for one of my tracks: followed under dynacast, for a track published here.
    func layersNeeded(_ needed: LayersNeeded) -> [Action] {
        guard dynacast, publications[needed.trackId] != nil else { return [] }
        return [.setNeededLayers(needed)]
    }

    /// Whether `trackId` has a remote track object.
    func knows(_ trackId: String) -> Bool { remote.contains(trackId) }

    /// A new session (join, CDN play) or its end: nothing is published or received.
    mutating func reset() {
        publications = [:]
        remote = []
        subscriptions = [:]
    }
}
