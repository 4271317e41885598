import Foundation
import RTCNet
import SRTCProtocol
import Synchronization

/// The server's parts, wired once: storage, apps, auth, metrics and the API router.
/// `srtc-server` builds one from its configuration; tests build one on loopback with free ports.
public final class ServerApp: Sendable {
    public let config: ServerConfig
    public let database: any Database
    public let apps: AppStore
    public let metrics: Metrics
    public let router: APIRouter
    /// The app created at this start, if the database had none (its key is printed once).
    public let createdApp: App?
    /// Live channels.
    let channels: ChannelManager
    /// The directory served at `/` and `/sdk/` (web SDK, demo page), if any.
    public let webDirectory: String?
    /// Delivers channel events to `--webhook-url`, when configured.
    let webhooks: WebhookDispatcher?
    /// This process as a cluster node (`--redis-url`): registry, channel directory, shared nonces and join limit.
    public let cluster: ClusterNode?
    /// The channels of other nodes this node relays (on a cluster).
    let edges: EdgeService
    private let http: Mutex<HTTPServer?> = Mutex(nil)
    /// The plain listener of `--http-redirect-port`, answering 308 to HTTPS.
    private let redirect: Mutex<HTTPServer?> = Mutex(nil)
    /// The SFU and its UDP port, bound by `start()`.
    private let mediaServer = MediaServerSlot()
    /// Parts built on the server (the meeting backend), in the order they were added.
    public let modules: [any ServerModule]
    /// The HTTP address, once `start()` listens.
    public let endpoint: ServerEndpoint
    /// What `/healthz` and `/readyz` answer.
    public let health: NodeHealth
    /// Watches the database and Redis for `health`, from `start()`.
    private let monitor = Mutex<HealthMonitor?>(nil)
    /// The start-up deadline (`--startup-timeout`) the steps that need other services share.
    private let startupWait: StartupWait

    /// Opens the data directory and database (SQLite there, or PostgreSQL at `--database-url`), applies migrations and makes sure an app exists.
    /// - Parameter modules: factories of the parts built on the server (`MeetingServer`), created
    ///   once storage is open; their routes and WebSocket paths are served with the server's own.
    public init(config: ServerConfig, clock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) },
                modules moduleFactories: [ServerModuleFactory] = []) throws {
        self.config = config
        endpoint = ServerEndpoint(certificateFile: config.http.tls == nil ? nil : config.http.tlsCert)
        let databasePath: String
        if config.dataDir == ":memory:" || config.cluster.databaseURL != nil {
            databasePath = ":memory:"
        } else {
            try FileManager.default.createDirectory(atPath: config.dataDir, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            databasePath = (config.dataDir as NSString).appendingPathComponent("srtc.sqlite3")
        }
        let startup = StartupWait(timeout: .seconds(config.cluster.startupTimeoutSeconds))
        startupWait = startup
        let databaseName = config.cluster.databaseURL.map { "PostgreSQL at \(StartupWait.redacted($0))" } ?? "SQLite at \(databasePath)"
        let database = try startup.run(waitingFor: databaseName) {
            try DatabaseLocator.open(url: config.cluster.databaseURL, sqlitePath: databasePath)
        }
        self.database = database
        _ = try startup.run(waitingFor: databaseName) { try Migrations.server.apply(to: database) }
        apps = try AppStore(database: database)
        if let id = config.appId, let key = config.appKey {
            try apps.upsert(appId: id, appKey: key, name: "configured")
            createdApp = nil
        } else {
            createdApp = try apps.createFirstIfNone()
        }
        if let redisURL = config.cluster.redisURL {
            let node = NodeInfo(id: ClusterNode.nodeId(configured: config.cluster.nodeId), httpURL: config.cluster.nodeURL ?? "", publicIP: config.publicIP)
            cluster = try startup.run(waitingFor: "Redis at \(StartupWait.redacted(redisURL))") { try ClusterNode(config: config, node: node) }
        } else {
            cluster = nil
        }
        health = NodeHealth(version: ProductVersion.current)
        metrics = Metrics()
        webDirectory = WebDirectory.resolveForProcess(configured: config.webDir)
        if let url = config.webhookURL {
            let client = HTTPClient(configuration: .init(timeout: .seconds(10)))
            webhooks = WebhookDispatcher(url: url, database: database, apps: apps, lease: cluster?.outboxLease, registry: cluster?.registry) { url, headers, body in
                try await client.post(url, headers: HTTPHeaders(headers), body: body).status
            }
        } else {
            webhooks = nil
        }
        let mediaServer = self.mediaServer
        let forwarder: ClusterForwarder? = if let cluster { ClusterForwarder(directory: cluster.directory, apps: apps) } else { nil }
        let relaying = forwarder.map { ChannelRelaying(forwarder: $0, limit: config.limits.nodeChannelSubscribers) }
        edges = EdgeService(media: mediaServer, registry: cluster?.registry)
        let events: any ChannelEventSink = webhooks ?? NoChannelEvents()
        channels = ChannelManager(limits: config.limits, events: cluster.map { ClusterChannelEvents(directory: $0.directory, next: events) } ?? events, sharedJoins: cluster?.joins, records: cluster?.rooms, mediaFactory: { key in
            mediaServer.current.map { SFURoomMedia(server: $0, key: key, relaying: relaying) }
        })
        let authenticator = RequestAuthenticator(apps: apps, nonces: cluster?.nonces ?? NonceCache(capacity: config.nonceCacheCapacity),
                                                 windowSeconds: config.signatureWindowSeconds)
        var builder = APIRouter.Builder()
        let metrics = self.metrics
        metrics.register(MediaMetrics(channels: channels, media: mediaServer))
        if let webhooks { metrics.register(webhooks) }
        let health = self.health
        builder.addImmediate("GET", "/healthz") { _ in let (status, body) = health.liveness(); return .json(status, body) }
        builder.addImmediate("GET", "/readyz") { _ in let (status, body) = health.readiness(); return .json(status, body) }
        builder.addImmediate("GET", "/metrics") { _ in .text(200, metrics.render(), contentType: "text/plain; version=0.0.4") }
        GrantRoutes.register(in: &builder)
        SealRoutes.register(in: &builder)
        edges.register(in: &builder)
        ChannelRoutes.register(in: &builder, manager: channels, limits: config.limits, forwarder: forwarder)
        HTTPMediaRoutes.register(in: &builder, sessions: HTTPMediaSessions(manager: channels, apps: apps, limits: config.limits, metrics: metrics,
                                                                           turn: TURNCredentialIssuer(config: config), cluster: cluster))
        let apps = self.apps
        DemoSignInRoutes.register(in: &builder, mode: config.demoAuth) { [appId = config.appId] in
            appId.flatMap(apps.app(id:)) ?? apps.all.first
        }
        let moduleContext = ServerModuleContext(config: config, database: database, apps: apps, metrics: metrics,
                                                channels: ChannelControl(manager: channels), notifications: UserNotifications(),
                                                cluster: cluster.map { ClusterPlacement(directory: $0.directory) },
                                                webhooks: ModuleWebhooks(dispatcher: webhooks), endpoint: endpoint)
        modules = try moduleFactories.map { try $0(moduleContext) }
        for module in modules { module.registerRoutes(in: &builder) }
        channels.setGatekeepers(modules)
        router = APIRouter(builder, authenticator: authenticator, metrics: metrics, maxBodyBytes: config.http.maxBodyBytes, clock: clock,
                            forwarder: forwarder)
    }

    /// Starts the HTTP server (API, signaling); returns once it listens.
    /// - Throws: `NetError.tls` naming the file when the certificate or key does not load or the
    ///   key does not match; address and port errors.
    public func start() throws {
        // Checked before anything binds: a bad certificate stops the start with nothing left running.
        if let tls = config.http.tls { _ = try TLSContext(configuration: tls, role: .server) }
        let apps = self.apps
        let speedTest = config.speedTest.enabled
            ? SpeedTestResponder(settings: config.speedTest, keyForIssuer: { apps.app(id: $0)?.appKey }) : nil
        let media = try MediaServer(bind: config.bind, port: config.media.udpPort, tcpPort: config.media.iceTCPPort,
                                    workers: config.media.effectiveWorkers, publicIP: config.publicIP,
                                    qualityIntervalSeconds: config.media.qualityIntervalSeconds, speedTest: speedTest,
                                    threadPriority: config.media.threadPriority, subscriberBudget: config.media.workerSubscriberBudget,
                                    publishVideoCodecs: config.media.videoCodecs)
        mediaServer.current = media
        let configuration = HTTPServerConfiguration(
            host: config.bind, port: config.httpPort,
            loopCount: config.http.threads > 0 ? config.http.threads : ProcessInfo.processInfo.activeProcessorCount,
            maxConnections: config.http.maxConnections, maxConnectionsPerAddress: config.http.maxConnectionsPerAddress,
            limits: .init(maxRequestLineBytes: config.http.maxRequestLineBytes, maxHeaderBytes: config.http.maxHeaderBytes,
                          maxHeaderCount: config.http.maxHeaderCount, maxBodyBytes: config.http.maxBodyBytes),
            headerTimeout: .seconds(config.http.headerTimeoutSeconds), idleTimeout: .seconds(config.http.idleTimeoutSeconds),
            tls: config.http.tls)
        let delegate = ServerHTTPDelegate(router: router, manager: channels, apps: apps, limits: config.limits, metrics: metrics,
                                          modules: modules, speedTest: config.speedTest.enabled ? config.speedTest : nil,
                                          turn: TURNCredentialIssuer(config: config), cluster: cluster,
                                          edgeClients: cluster == nil ? nil : edges.clients)
        let server = HTTPServer(configuration: configuration,
                                delegate: StaticFilesDelegate(files: webDirectory.flatMap(StaticFiles.init(directory:)), next: delegate))
        try server.start()
        if server.effectiveMaxConnections < config.http.maxConnections {
            Log.warn("server", "open-file limit \(ProcessLimits.openFiles().soft) allows \(server.effectiveMaxConnections) connections, not the configured \(config.http.maxConnections)")
        }
        http.withLock { $0 = server }
        if let redirectPort = config.http.redirectPort {
            let redirector = HTTPServer(configuration: HTTPServerConfiguration(host: config.bind, port: redirectPort, loopCount: 1),
                                        delegate: HTTPSRedirectDelegate(httpsPort: server.port))
            try redirector.start()
            redirect.withLock { $0 = redirector }
        }
        if let summary = server.currentTLSContext?.certificateSummary {
            Log.info("tls", "serving HTTPS/WSS with \(config.http.tlsCert ?? ""): \(summary)")
        }
        endpoint.set(scheme: config.http.scheme, host: config.bind, port: server.port)
        let channels = self.channels
        let nodeURL = config.cluster.nodeURL ?? "\(config.http.scheme)://\(config.publicIP ?? config.bind):\(server.port)"
        if let cluster {
            try startupWait.run(waitingFor: "Redis at \(StartupWait.redacted(config.cluster.redisURL ?? ""))") {
                try cluster.start(httpURL: nodeURL, mediaAddresses: media.udpAddresses, load: { (channels.count, channels.participantCount) },
                                  forwarded: { media.metrics.counters.rtpPacketsOut })
            }
            edges.startSweeping(every: cluster.registry.interval)
        }
        let monitor = HealthMonitor(health: health, database: database, redis: cluster?.redis) { [cluster] in
            // Redis came back, perhaps empty: claim this node's channels again so that joins on
            // other nodes find them here instead of placing a second copy elsewhere.
            cluster?.reclaim(channels.keys)
        }
        monitor.start()
        self.monitor.withLock { $0 = monitor }
        health.markStarted()
    }

    /// The bound UDP media port of the first worker (useful with port 0).
    public var udpPort: UInt16 { mediaServer.current?.udpPort ?? 0 }

    /// Every media worker's bound UDP port, by worker index.
    public var udpPorts: [UInt16] { mediaServer.current?.workers.map(\.udpPort) ?? [] }

    /// Test support: the media workers, for a test that looks at what an SFU holds
    /// (`SDKE2EEServerTapTests`: no plaintext of an end-to-end encrypted track).
    var mediaWorkers: [MediaWorker] { mediaServer.current?.workers ?? [] }

    /// Test support: every channel made from now on goes to media worker `index` (nil: the
    /// least loaded, as in production), so a suite with one channel can run on another worker
    /// than the first.
    package func pinChannels(toMediaWorker index: Int?) {
        mediaServer.current?.pinnedWorker.store(index ?? -1, ordering: .relaxed)
    }

    /// The bound ICE-TCP port of the first worker, when `--ice-tcp-port` enabled it (useful with port 0).
    public var iceTCPPort: UInt16? { mediaServer.current?.tcpPort }

    /// The bound HTTP port (useful with port 0).
    public var httpPort: UInt16 { http.withLock { $0?.port ?? 0 } }

    /// The bound port of `--http-redirect-port`, when set (useful with port 0).
    public var httpRedirectPort: UInt16? { redirect.withLock { $0?.port } }

    /// Reads `--tls-cert` and `--tls-key` again (`SIGHUP`, after a renewal): connections accepted
    /// from now on get the new certificate, open ones (calls in progress) keep theirs. A file that
    /// does not load or a key that does not match leaves the old certificate in use.
    /// - Returns: what the server now presents.
    /// - Throws: `NetError.tls` saying which file failed, or when TLS is off.
    @discardableResult
    public func reloadTLS() throws -> TLSContext.CertificateSummary? {
        guard let tls = config.http.tls else { throw NetError.tls("TLS is off (no --tls-cert / --tls-key)") }
        guard let server = http.withLock({ $0 }) else { throw NetError.tls("the server is not listening") }
        return try server.replaceTLS(with: tls).certificateSummary
    }

    /// Drains this cluster node (`SIGTERM`, docs/deploy.md "Drain and failover"): it takes no new
    /// channels, serves its channels until they empty or `deadline` passes, then hands the rest
    /// to the cluster: their clients get `reconnect` and resume on the channel's next node.
    /// Nothing happens on a single node. Call `shutdown` afterwards.
    public func drain(deadline: Duration) async {
        health.markDraining()
        guard let cluster else { return }
        Log.info("cluster", "draining: no new channels; \(channels.count) channel(s) served for up to \(deadline)")
        await cluster.startDraining()
        let end = ContinuousClock.now + deadline
        while channels.count > 0, ContinuousClock.now < end {
            try? await TimerQueue.shared.sleep(for: .milliseconds(100))
        }
        let directory = cluster.directory
        await channels.handOffAll { await directory.release($0) }
        for module in modules { await module.handOff() }
    }

    /// Ends every session and stops serving, letting in-flight requests finish.
    public func shutdown() async {
        monitor.withLock { $0?.stop() }
        cluster?.stop()
        for module in modules { await module.shutdown() }
        await channels.closeAll()
        await edges.closeAll()
        webhooks?.stop()
        let redirector = redirect.withLock { s -> HTTPServer? in defer { s = nil }; return s }
        await redirector?.shutdown(gracePeriod: .seconds(1))
        let server = http.withLock { s -> HTTPServer? in defer { s = nil }; return s }
        await server?.shutdown(gracePeriod: .seconds(3))
        mediaServer.current?.stop()
    }
}

/// Until webhooks are configured, channel events go nowhere.
struct NoChannelEvents: ChannelEventSink {
    func channelCreated(_ key: ChannelKey) {}
    func channelClosed(_ key: ChannelKey) {}
    func userJoined(_ key: ChannelKey, uid: String) {}
    func userLeft(_ key: ChannelKey, uid: String, reason: DisconnectReason) {}
    func trackPublished(_ key: ChannelKey, uid: String, track: TrackInfo) {}
    func trackUnpublished(_ key: ChannelKey, uid: String, track: TrackInfo) {}
}

/// The media server once `start()` made it (rooms created before have no media).
final class MediaServerSlot: Sendable {
    private let value = Mutex<MediaServer?>(nil)
    var current: MediaServer? {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}
