import Foundation
import SRTCProtocol
import Synchronization

/// One channel instance: join a channel on a server, see its users and their tracks, publish
/// local tracks, subscribe to remote ones, exchange custom messages.
///
/// Create with `SRTCEngine.createChannel()`; observe with `delegates.add(delegate:)`.
/// Every method may be called from any thread; events arrive on the engine's delegate queue.
///
/// The channel is a driver around `ChannelMachine`, which holds its rules: signaling events,
/// answers, timer fires and public calls are fed to the machine on the channel's one serial
/// queue, and the channel carries out the actions it returns (docs/architecture.md, "The SDK
/// engine"). The public getters read a copy of the public state (`PublicState`) that the queue
/// publishes after each change, so a getter never waits for the queue.
// Sendable, checked: every stored property is a `let` of a Sendable type; the mutable state is
// in `state`, which only the channel's serial queue touches (`QueueOwned`), and its public copy
// in `published`, behind a lock (`Snapshot`).
public final class Channel: Sendable {
    // MARK: - Types

    /// Where the channel's connection stands.
    public enum ConnectionState: Sendable, Equatable {
        /// Not joined (never, or after leaving / a final disconnect).
        case disconnected
        /// `join` is under way.
        case connecting
        /// Joined; the signaling connection is up.
        case connected
        /// Joined; the signaling connection dropped and the SDK is resuming the session.
        case reconnecting
    }

    /// What `join` sends besides the token.
    struct JoinParameters: Sendable, Equatable {
        var webSocketURL: String
        var token: String
        var nickname: String?
        var custom: String?
    }

    /// The channel's machine, with a live signaling connection as its link.
    typealias Machine = ChannelMachine<SignalLink>

    /// What the channel's queue owns: the machine, and the objects its actions act on.
    struct State {
        var machine = Machine()
        /// Remote track objects by track id (the machine's `tracks.remote`).
        var remoteTracks: [String: RemoteTrack] = [:]
        /// My published track objects by server id (the machine's `tracks.publications`).
        var localTracks: [String: LocalTrack] = [:]
        var ticker: DispatchSourceTimer?
        /// The local address toward the server on each path, to notice a move to another network.
        var paths = NetworkPathWatcher()
        /// Media transports, once something was published or subscribed.
        var media: ChannelMedia?
        /// This channel's end-to-end encryption (`setE2EE(_:)`; the engine's `Configuration.e2ee` by default).
        var e2ee: E2EEConfiguration?
        /// Callers of `remoteTrack(uid:desc:waitingUpTo:)` waiting for their track.
        var trackWaiters: [Int: TrackWaiter] = [:]
        var nextTrackWaiter = 0
        /// The CDN engine's stream reader and its URL, while playing; a stream opened and not yet
        /// started (the machine's `startStream` / `discardStream` decide).
        var cdn: LiveStreamPlayback?
        var streamURL: String?
        var openedStream: (any LiveStream)?
        /// The `publishLocalVideo` switch, and the preview track the engine published here.
        var publishesLocalVideo = true
        var previewSent: LocalVideoTrack?

        /// The live signaling connection.
        var signal: SignalClient? { machine.link?.client }

        /// What the public getters show.
        var publicState: PublicState {
            PublicState(connection: machine.connection, info: machine.info, me: machine.me, sessionId: machine.sessionId,
                        users: machine.users, remoteTracks: remoteTracks, localTracks: localTracks,
                        publishesLocalVideo: publishesLocalVideo, media: media)
        }
    }

    /// A copy of what the public getters show, published after every change of `State`.
    struct PublicState: Sendable {
        var connection: ConnectionState
        var info: ChannelInfo?
        var me: UserInfo?
        var sessionId: String?
        var users: [UserInfo]
        var remoteTracks: [String: RemoteTrack]
        var localTracks: [String: LocalTrack]
        var publishesLocalVideo: Bool
        var media: ChannelMedia?
    }

    // MARK: - Properties

    /// Channel events; observers are held weakly.
    public let delegates: MulticastDelegate<ChannelDelegate>
    let context: EngineContext
    weak let engine: SRTCEngine?
    /// The engine this channel runs on: the SFU (join, publish, subscribe) or the receive-only CDN engine.
    public let engineType: ChannelEngine
    /// Serializes event handling, timers and state changes: the one executor of the channel.
    let queue: DispatchQueue
    /// Serializes the preview's publishing (`syncPreview()`).
    let previewLock = AsyncLock()
    let state: QueueOwned<State>
    /// What the getters read: the queue's last published copy of the public state.
    let published: Snapshot<PublicState>

    init(context: EngineContext, engine: SRTCEngine?, engineType: ChannelEngine = .sfu) {
        self.context = context
        self.engine = engine
        self.engineType = engineType
        self.delegates = MulticastDelegate(queue: context.delegateQueue)
        var initial = State()
        initial.machine = Machine(dynacast: context.configuration.dynacast)
        initial.e2ee = context.configuration.e2ee
        let queue = DispatchQueue(label: "srtc.channel")
        self.queue = queue
        let published = Snapshot(initial.publicState)
        self.published = published
        self.state = QueueOwned(initial, queue: queue) { published.publish($0.publicState) }
    }

    // MARK: - Public API: state

    // Each getter reads the last published copy (`published`), never waiting for the queue: an
    // app may call them from any thread, a delegate callback included (docs/sdk-srtc.md, "Threads").

    /// The connection state.
    public var connectionState: ConnectionState { published.read().connection }
    /// Whether the channel is joined (connected or reconnecting).
    public var isJoined: Bool {
        let connection = connectionState
        return connection == .connected || connection == .reconnecting
    }
    /// The channel's info, once joined.
    public var info: ChannelInfo? { published.read().info }
    /// The channel name, once joined.
    public var channelId: String? { info?.channel }
    /// My user info (uid from the token), once joined.
    public var me: UserInfo? { published.read().me }
    /// My uid, once joined.
    public var uid: String? { me?.uid }
    /// The session id the server gave (used to resume after a reconnect).
    public var sessionId: String? { published.read().sessionId }
    /// The other users in the channel, in join order.
    public var users: [UserInfo] { published.read().users }
    /// One remote user.
    public func user(uid: String) -> UserInfo? { users.first { $0.uid == uid } }
    /// Every remote track.
    public var remoteTracks: [RemoteTrack] {
        published.read().remoteTracks.values.sorted { ($0.uid, $0.id) < ($1.uid, $1.id) }
    }
    /// The remote tracks of one user.
    public func remoteTracks(uid: String) -> [RemoteTrack] { remoteTracks.filter { $0.uid == uid } }
    /// A remote track by id.
    public func remoteTrack(trackId: String) -> RemoteTrack? { published.read().remoteTracks[trackId] }
    /// The remote track of `uid` with description `desc`.
    public func remoteTrack(uid: String, desc: String) -> RemoteTrack? {
        remoteTracks.first { $0.uid == uid && $0.desc == desc }
    }
    /// My published tracks.
    public var localTracks: [LocalTrack] { Array(published.read().localTracks.values) }
    /// The media transports, once made (tests look at their counters).
    var media: ChannelMedia? { published.read().media }
    /// What the subscribe transport NACKed and got twice so far (tests and the lab; nil before media).
    package var receiveRepair: ReceiveRepairCounts? { media?.subscribe.repairCounts }

    // MARK: - Public API: join and leave

    /// Joins a channel.
    ///
    /// - Parameters:
    ///   - url: the server: `http://host:7880` or `https://host` (the SDK connects its signaling
    ///     WebSocket to `ws(s)://host:port/rtc/v1/ws`); a `ws(s)://` URL with a path is used as is.
    ///   - token: the join token your backend obtained from `/server/v1/channel/grant`; it names
    ///     the channel and your uid.
    ///   - nickname: shown to others in `UserInfo.nickname`.
    ///   - custom: free-form profile data (at most 4 KiB).
    /// - Returns: the channel's info (also delivered by `channel(_:didJoinSucceed:)`).
    /// - Throws: `SRTCError` (`.server` with the server's code for a refused token).
    @discardableResult
    public func join(url: String, token: String, nickname: String? = nil, custom: String? = nil) async throws(SRTCError) -> ChannelInfo {
        guard engineType == .sfu else { throw .wrongState("a CDN channel plays a stream: use play(url:)") }
        let webSocketURL = try SignalURL.webSocketURL(for: url)
        guard !context.isDestroyed else { throw .engineDestroyed }
        let parameters = JoinParameters(webSocketURL: webSocketURL, token: token, nickname: nickname, custom: custom)
        try state.sync { (s) throws(SRTCError) in try s.machine.begin(parameters) }
        var answer: (SignalLink, JoinResponse)?
        do throws(SRTCError) {
            let client = try await SignalClient.connect(url: webSocketURL, tls: context.configuration.tls)
            let link = SignalLink(client: client)
            // Without `sendJoin` the channel left meanwhile (the step closed the link).
            if case .sendJoin? = await onQueue({ [self] in step(.linkOpened(link, attempt: nil)) }).first {
                startListening(to: link.client)
                answer = (link, try await requestJoin(on: link.client, parameters: parameters, sessionId: nil))
            }
        } catch {
            await onQueue { [self] in step(.joinFailed) }
            throw error
        }
        guard case let (link, response)? = answer,
              await onQueue({ [self] in step(.joinAnswered(response, on: link)).contains(.notify(.joined(response.channel))) }) else {
            throw .wrongState("left while joining")
        }
        context.logger.info("joined \(response.channel.channel) as \(response.me.uid)")
        // Seed 000: a preview started before the join is published now the channel is joined.
        if engine?.localPreviewTrack != nil { await syncPreviewLogged() }
        return response.channel
    }

    /// Leaves the channel: unpublishes, closes the media transports and the signaling connection.
    /// Returns once left; `channel(_:didDisconnect:error:)` follows with `.clientLeave`.
    /// Calling it when not joined does nothing.
    public func leave() async {
        guard case .sendLeave(let link)? = await onQueue({ [self] in step(.leave) }).first else { return }
        if let link { _ = try? await link.client.request(.leave, timeout: .seconds(3)) }
        await onQueue { [self] in step(.left) }
    }

    /// Leaves (if joined) and releases the channel; it cannot join again.
    public func destroy() async {
        await leave()
        state.sync { $0.machine.destroy() }
        engine?.remove(self)
    }

    // MARK: - Internals

    /// Runs `body` on the channel's queue and waits for it.
    @discardableResult
    func onQueue<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: body()) }
        }
    }

    /// Routes a signaling connection's events and close to the channel's queue; messages of a
    /// connection that is no longer the channel's are ignored there.
    func startListening(to signal: SignalClient) {
        signal.start(onEvent: { [weak self] event in
            guard let self else { return }
            queue.async { self.receive(event, from: signal) }
        }, onClose: { [weak self] info in
            guard let self else { return }
            queue.async { self.signalClosed(signal, reason: info.description) }
        })
    }

    /// The video codecs this SDK decodes (libvpx VP8 and VP9, OpenH264, dav1d AV1), sent as the
    /// join's `video_codecs`: a track in another codec is refused with `subscription_ended`
    /// (`codec_unsupported`) rather than sent undecodable. OpenH264 decodes Main and High too (each
    /// picture at once: no B-frames), which the server offers only to a client that names them
    /// (a plain `h264` is Constrained Baseline, docs/protocol.md).
    static let decodedVideoCodecs = ["vp8", "vp9", "h264", "h264;profile-level-id=4d001f", "h264;profile-level-id=64001f", "av1"]

    func requestJoin(on signal: SignalClient, parameters: JoinParameters, sessionId: String?) async throws(SRTCError) -> JoinResponse {
        let request = JoinRequest(token: parameters.token, sessionId: sessionId, nickname: parameters.nickname,
                                  custom: parameters.custom, sdk: "srtc-swift/\(SRTCEngine.version) \(Self.platform)",
                                  dataChannel: context.configuration.useDataChannel ? true : nil, videoCodecs: Self.decodedVideoCodecs)
        guard case .joined(let response) = try await signal.request(.join(request)) else {
            throw .connectionFailed("join answered without session")
        }
        SealKeyring.shared.remember(encodedKey: response.sealKey, uid: response.me.uid, token: parameters.token)
        return response
    }

    /// The signaling connection in use, or `.notJoined`.
    func liveSignal() throws(SRTCError) -> SignalClient {
        guard engineType == .sfu else { throw .wrongState("the CDN engine is receive-only") }
        let (signal, connection) = state.sync { ($0.signal, $0.machine.connection) }
        guard connection == .connected || connection == .reconnecting else { throw .notJoined }
        guard let signal, connection == .connected else { throw .connectionFailed("reconnecting") }
        return signal
    }

    static var platform: String {
        #if os(Linux)
        "linux"
        #elseif os(macOS)
        "macos"
        #elseif os(iOS)
        "ios"
        #else
        "other"
        #endif
    }
}
