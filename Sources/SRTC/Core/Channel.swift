import Foundation
import SRTCProtocol
import Synchronization

/// One channel instance: join a channel on a server, see its users and their tracks, publish
/// local tracks, subscribe to remote ones, exchange custom messages.
///
/// Create with `SRTCEngine.createChannel()`; observe with `delegates.add(delegate:)`.
/// Every method may be called from any thread; events arrive on the engine's delegate queue.
// @unchecked Sendable: `engine` (weak, Sendable) is set in init and never reassigned; all mutable state is in `state` (Mutex), the rest is `let`s of Sendable types.
public final class Channel: @unchecked Sendable {
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
    struct JoinParameters: Sendable {
        var webSocketURL: String
        var token: String
        var nickname: String?
        var custom: String?
    }

    // @unchecked Sendable: a State lives only inside `Channel.state` (Mutex); its non-Sendable fields are DispatchSource timers (thread-safe) and waiters' continuations, taken out only to be cancelled or resumed once.
    struct State: @unchecked Sendable {
        var connection: ConnectionState = .disconnected
        /// TURN servers of the last join response, for the media transports.
        var iceServers: [ICEServer] = []
        var destroyed = false
        var parameters: JoinParameters?
        var sessionId: String?
        var info: ChannelInfo?
        var me: UserInfo?
        /// Remote users in join order.
        var users: [UserInfo] = []
        /// Publishers that are not users (a server composite), with their tracks (`hidden_tracks`).
        var hiddenPublishers: [String: UserInfo] = [:]
        var remoteTracks: [String: RemoteTrack] = [:]
        /// My published tracks by server id.
        var localTracks: [String: LocalTrack] = [:]
        /// The live signaling connection (or the one a join / resume is using).
        var signal: SignalClient?
        /// Events that arrived while a join response is being applied; replayed after it.
        var heldEvents: [ServerEvent]?
        /// The session moved to another node and the local tracks are not published there yet
        /// (`Channel+Move`); retried after each resume until it succeeds.
        var republishPending = false
        var reconnect: ReconnectMachine
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
        /// The CDN engine's stream reader and its URL, while playing.
        var cdn: (any Sendable)?
        var streamURL: String?
        /// The `publishLocalVideo` switch, and the preview track the engine published here.
        var publishesLocalVideo = true
        var previewSent: LocalVideoTrack?
    }

    // MARK: - Properties

    /// Channel events; observers are held weakly.
    public let delegates: MulticastDelegate<ChannelDelegate>
    let context: EngineContext
    weak var engine: SRTCEngine?
    /// The engine this channel runs on: the SFU (join, publish, subscribe) or the receive-only CDN engine.
    public let engineType: ChannelEngine
    /// Serializes event handling and state changes.
    let queue = DispatchQueue(label: "srtc.channel")
    /// Serializes the preview's publishing (`syncPreview()`).
    let previewLock = AsyncLock()
    let state: Mutex<State>

    init(context: EngineContext, engine: SRTCEngine?, engineType: ChannelEngine = .sfu) {
        self.context = context
        self.engine = engine
        self.engineType = engineType
        self.delegates = MulticastDelegate(queue: context.delegateQueue)
        var initial = State(reconnect: ReconnectMachine())
        initial.e2ee = context.configuration.e2ee
        self.state = Mutex(initial)
    }

    // MARK: - Public API: state

    /// The connection state.
    public var connectionState: ConnectionState { state.withLock { $0.connection } }
    /// Whether the channel is joined (connected or reconnecting).
    public var isJoined: Bool { state.withLock { $0.connection == .connected || $0.connection == .reconnecting } }
    /// The channel's info, once joined.
    public var info: ChannelInfo? { state.withLock { $0.info } }
    /// The channel name, once joined.
    public var channelId: String? { info?.channel }
    /// My user info (uid from the token), once joined.
    public var me: UserInfo? { state.withLock { $0.me } }
    /// My uid, once joined.
    public var uid: String? { me?.uid }
    /// The session id the server gave (used to resume after a reconnect).
    public var sessionId: String? { state.withLock { $0.sessionId } }
    /// The other users in the channel, in join order.
    public var users: [UserInfo] { state.withLock { $0.users } }
    /// One remote user.
    public func user(uid: String) -> UserInfo? { state.withLock { s in s.users.first { $0.uid == uid } } }
    /// Every remote track.
    public var remoteTracks: [RemoteTrack] {
        state.withLock { Array($0.remoteTracks.values) }.sorted { ($0.uid, $0.id) < ($1.uid, $1.id) }
    }
    /// The remote tracks of one user.
    public func remoteTracks(uid: String) -> [RemoteTrack] { remoteTracks.filter { $0.uid == uid } }
    /// A remote track by id.
    public func remoteTrack(trackId: String) -> RemoteTrack? { state.withLock { $0.remoteTracks[trackId] } }
    /// The remote track of `uid` with description `desc`.
    public func remoteTrack(uid: String, desc: String) -> RemoteTrack? {
        remoteTracks.first { $0.uid == uid && $0.desc == desc }
    }
    /// My published tracks.
    public var localTracks: [LocalTrack] { state.withLock { Array($0.localTracks.values) } }

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
        try state.withLock { (s) throws(SRTCError) in
            guard !s.destroyed else { throw .engineDestroyed }
            guard s.connection == .disconnected else { throw .wrongState("join while \(s.connection)") }
            s.connection = .connecting
            s.parameters = parameters
            s.heldEvents = []
            s.reconnect = ReconnectMachine()
        }
        let signal: SignalClient
        let response: JoinResponse
        do throws(SRTCError) {
            signal = try await SignalClient.connect(url: webSocketURL, tls: context.configuration.tls)
            state.withLock { $0.signal = signal }
            startListening(to: signal)
            response = try await requestJoin(on: signal, parameters: parameters, sessionId: nil)
        } catch {
            await onQueue { [self] in
                let current = state.withLock { s -> SignalClient? in
                    defer { s.signal = nil; s.connection = .disconnected; s.heldEvents = nil }
                    return s.signal
                }
                current?.close()
            }
            throw error
        }
        guard await onQueue({ [self] in applyFirstJoin(response, signal: signal) }) else {
            signal.close()
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
        let signal: SignalClient? = state.withLock { s in
            guard s.connection != .disconnected else { return nil }
            s.reconnect.left()
            return s.signal
        }
        guard isJoinedOrJoining else { return }
        if let signal { _ = try? await signal.request(.leave, timeout: .seconds(3)) }
        await onQueue { [self] in teardown(reason: .clientLeave, error: nil) }
    }

    /// Leaves (if joined) and releases the channel; it cannot join again.
    public func destroy() async {
        await leave()
        state.withLock { $0.destroyed = true }
        engine?.remove(self)
    }

    private var isJoinedOrJoining: Bool { state.withLock { $0.connection != .disconnected } }

    // MARK: - Internals

    /// Runs `body` on the channel's queue and waits for it.
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
        let (signal, connection) = state.withLock { ($0.signal, $0.connection) }
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
