import EgressProtocol
import Foundation
import RTCCrypto
import RTCNet
import SRTCProtocol
import SRTCServer

/// Runs every egress task of this node (and live captions) as an `srtc-egress` worker process, out of the SFU's
/// process so a bad frame can only kill a worker: starts it with a hidden channel token, follows
/// its events, restarts a composite whose worker died (with backoff), records what each
/// recording's worker reports, enforces the node's task limit, and stops everything cleanly at
/// shutdown. An actor: API calls, worker events and exits are serialized.
actor EgressSupervisor {
    // MARK: - Types

    /// Where files go and which worker runs.
    struct Settings: Sendable {
        var recordingDirectory: String?
        var liveDirectory: String?
        var workerExecutable: String
        var maxTasks: Int
        /// The address ingress listeners bind (the server's `--bind`).
        var ingressBind = "127.0.0.1"
        /// The host in the push URLs the API answers (`--public-ip`, else the bound address).
        var ingressHost = "127.0.0.1"
        /// The ports ingress listeners take (`--ingress-ports`); nil: any free port.
        var ingressPorts: ClosedRange<UInt16>?
        /// The node whose ingresses this supervisor stores and resumes (`--node-id`; "" alone).
        var nodeId = ""
        /// Seconds a start waits for the worker to report that it runs.
        var startTimeout: Double = 15
        /// Seconds a stop waits for the worker to finish its files before killing it.
        var stopTimeout: Double = 15
    }

    /// A worker's report, in the order it happened.
    enum Message: Sendable {
        case event(taskId: String, generation: Int, WorkerEvent)
        case exit(taskId: String, generation: Int, status: Int32)
    }

    final class Composite {
        var info: CompositeInfo
        let appId: String
        let key: ChannelKey
        var settings: CompositeSettings
        var live: LiveSettings?
        /// The trusted recorder's keys: in memory only, handed to each worker it starts.
        var e2ee: EgressE2EEKeys?
        var worker: WorkerProcess?
        var generation = 0
        var stopping = false
        /// Why the worker ended on its own, when it said so.
        var endReason: String?
        var failure: (code: String, message: String)?
        /// Restarts in a row without a worker that ran `RestartBackoff.stableSeconds`: sets the delay.
        var backoff = RestartBackoff()

        init(info: CompositeInfo, appId: String, key: ChannelKey, settings: CompositeSettings) {
            self.info = info
            self.appId = appId
            self.key = key
            self.settings = settings
        }
    }

    final class Recording {
        var info: RecordingInfo
        let appId: String
        let key: ChannelKey
        let path: String
        let settings: RecordingSettings
        /// The trusted recorder's keys: in memory only.
        var e2ee: EgressE2EEKeys?
        var worker: WorkerProcess?
        var stopping = false
        var result: RecordingResult?
        var failure: (code: String, message: String)?

        init(info: RecordingInfo, appId: String, key: ChannelKey, path: String, settings: RecordingSettings) {
            self.info = info
            self.appId = appId
            self.key = key
            self.path = path
            self.settings = settings
        }
    }

    // MARK: - Properties

    let settings: Settings
    let store: EgressStore
    let apps: AppStore
    let channels: ChannelControl
    let webhooks: ModuleWebhooks
    let endpoint: ServerEndpoint
    var composites: [String: Composite] = [:]
    var recordings: [String: Recording] = [:]
    var ingresses: [String: Ingress] = [:]
    var captionRuns: [String: CaptionRun] = [:]
    private var waiters: [String: [CheckedContinuation<Void, Never>]] = [:]
    private let messages: AsyncStream<Message>.Continuation
    private var shuttingDown = false

    init(settings: Settings, store: EgressStore, apps: AppStore, channels: ChannelControl, webhooks: ModuleWebhooks, endpoint: ServerEndpoint) {
        self.settings = settings
        self.store = store
        self.apps = apps
        self.channels = channels
        self.webhooks = webhooks
        self.endpoint = endpoint
        // A write to a worker that just died must not kill the server.
        signal(SIGPIPE, SIG_IGN)
        let (stream, continuation) = AsyncStream.makeStream(of: Message.self)
        messages = continuation
        Task { [weak self] in
            for await message in stream {
                guard let self else { return }
                await self.handle(message)
            }
        }
    }

    /// Tasks running on this node (the limit counts them).
    var activeCount: Int { composites.count + recordings.count + ingresses.count + captionRuns.count }

    // MARK: - Workers

    /// Starts a worker for `task`; events and its exit come back as messages tagged `generation`.
    func spawn(_ task: WorkerTask, generation: Int) throws(EgressError) -> WorkerProcess {
        let messages = self.messages
        let id = task.taskId
        let worker = WorkerProcess(executable: settings.workerExecutable,
                                   onEvent: { messages.yield(.event(taskId: id, generation: generation, $0)) },
                                   onExit: { messages.yield(.exit(taskId: id, generation: generation, status: $0)) })
        try worker.start(task)
        return worker
    }

    /// A hidden channel token for a worker, signed with the app's key. A worker that publishes
    /// (composite, ingress) is a server publisher: `--video-codecs` does not apply to it.
    /// - Parameter hidden: false for an ingress, whose user the channel must see.
    func workerToken(appId: String, key: ChannelKey, uid: String, publish: Bool, hidden: Bool = true) throws(EgressError) -> String {
        guard let app = apps.app(id: appId) else { throw EgressError(.internalError, "unknown app \(appId)") }
        let now = Int64(Date().timeIntervalSince1970)
        // A day: a longer task is restarted with a fresh token when this one expires.
        let claims = TokenClaims(iss: appId, sub: uid, iat: now, nbf: now - 5, exp: now + 86_400, jti: SecureRandom.string(count: 16),
                                 grant: ChannelGrant(channel: key.name, publish: publish, subscribe: true, publishData: false, hidden: hidden,
                                                     serverPublisher: publish))
        return AccessToken.sign(claims, key: app.appKey)
    }

    /// The server's address for workers.
    func serverURL() throws(EgressError) -> String {
        guard let url = endpoint.httpURL else { throw EgressError(.internalError, "the server is not listening yet") }
        return url
    }

    private func handle(_ message: Message) async {
        switch message {
        case .event(let id, let generation, let event):
            if let c = composites[id], c.generation == generation { compositeEvent(c, event) }
            if let r = recordings[id] { recordingEvent(r, event) }
            if let i = ingresses[id], i.generation == generation { ingressEvent(i, event) }
            if let run = captionRuns[id], run.generation == generation { await captionEvent(run, event) }
        case .exit(let id, let generation, let status):
            if let c = composites[id], c.generation == generation { await compositeExited(c, status: status) }
            if let r = recordings[id] { recordingExited(r, status: status) }
            if let i = ingresses[id], i.generation == generation { await ingressExited(i, status: status) }
            if let run = captionRuns[id], run.generation == generation { await captionExited(run, status: status) }
        }
    }

    /// Runs `body` on the actor after `delay` seconds: a dead worker's restart, with backoff.
    func afterDelay(_ delay: Double, _ body: @escaping @Sendable (isolated EgressSupervisor) -> Void) {
        Task { [weak self] in
            try? await TimerQueue.shared.sleep(for: .seconds(delay))
            await self?.run(body)
        }
    }

    private func run(_ body: @Sendable (isolated EgressSupervisor) -> Void) { body(self) }

    // MARK: - Waiting

    /// Waits until `wake(name)` or `timeout` seconds pass.
    func wait(_ name: String, timeout: Double) async {
        let timer = Task { [weak self] in
            try? await TimerQueue.shared.sleep(for: .seconds(timeout))
            await self?.wake(name)
        }
        await withCheckedContinuation { waiters[name, default: []].append($0) }
        timer.cancel()
    }

    func wake(_ name: String) {
        for waiter in waiters.removeValue(forKey: name) ?? [] { waiter.resume() }
    }

    // MARK: - Shutdown

    /// Stops every task, letting each worker finalize its files.
    func shutdown() async {
        shuttingDown = true
        let compositeTargets = composites.values.map { ($0.appId, $0.key, $0.settings.uid) }
        let recordingTargets = recordings.values.map { ($0.appId, $0.info.recordingId) }
        let ingressTargets = ingresses.values.map { ($0.appId, $0.info.ingressId) }
        let captionTargets = captionRuns.values.map { ($0.appId, $0.key) }
        await withTaskGroup(of: Void.self) { group in
            for (appId, key, uid) in compositeTargets { group.addTask { _ = try? await self.stopComposite(appId: appId, key: key, uid: uid) } }
            for (appId, id) in recordingTargets { group.addTask { _ = try? await self.stopRecording(appId: appId, id: id) } }
            for (appId, id) in ingressTargets { group.addTask { _ = try? await self.deleteIngress(appId: appId, id: id) } }
            for (appId, key) in captionTargets { group.addTask { _ = try? await self.stopCaptions(appId: appId, key: key) } }
        }
    }

    var isShuttingDown: Bool { shuttingDown }

    /// Waits for a worker to exit after it was told to stop; kills it after the stop timeout.
    func awaitExit(_ name: String, worker: WorkerProcess?, stillRunning: () -> Bool) async {
        guard let worker else { return }
        worker.send(.stop)
        worker.closeInput()
        await wait(name, timeout: settings.stopTimeout)
        if stillRunning() {
            worker.kill()
            await wait(name, timeout: 5)
        }
    }

    static func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    /// Seconds on a clock that only moves forward (worker run times).
    static func monotonicSeconds() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
}
