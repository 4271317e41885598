import EgressProtocol
import Foundation
import RTCCrypto
import RTCNet
import SRTCProtocol
import SRTCServer

// Ingresses: one worker per ingress, listening (RTMP, SRT) or pulling (URL) for as long as the
// ingress exists, restarted with backoff when it dies; its pushes come and go without a restart.
extension EgressSupervisor {
    final class Ingress {
        var info: IngressInfo
        let appId: String
        let key: ChannelKey
        let settings: IngressSettings
        /// The listener's port (RTMP, SRT): kept for the ingress even while nothing listens on it.
        var port: UInt16?
        var worker: WorkerProcess?
        var generation = 0
        var stopping = false
        var failure: (code: String, message: String)?
        var backoff = RestartBackoff()
        /// Whether a worker reported `started` (create answers then).
        var workerStarted = false

        init(info: IngressInfo, appId: String, key: ChannelKey, settings: IngressSettings) {
            self.info = info
            self.appId = appId
            self.key = key
            self.settings = settings
        }
    }

    /// What `ingress/create` asks for, checked by the route.
    struct IngressRequest: Sendable {
        var kind: IngressSettings.Kind
        var uid: String
        var pullURL: String?
        var videoBitrate: Int
        var simulcast: Bool
        /// The request had `transcode`: video is always re-encoded.
        var transcode: Bool = false
        /// The request had `"transcode": false`: H.264 High passes through too.
        var passesHigh: Bool = false
    }

    // MARK: - API

    /// Creates an ingress and starts its worker; returns once the worker listens (or pulls).
    func createIngress(appId: String, key: ChannelKey, request: IngressRequest) async throws(EgressError) -> IngressInfo {
        guard !isShuttingDown else { throw EgressError(.wrongState, "the server is shutting down") }
        if ingresses.values.contains(where: { $0.key == key && $0.settings.uid == request.uid }) {
            throw EgressError(.alreadyExists, "channel \(key.name) already has an ingress under uid \(request.uid)")
        }
        guard activeCount < settings.maxTasks else { throw EgressError(.limitReached, "this node runs \(settings.maxTasks) egress tasks, its limit") }
        let id = "IN_" + SecureRandom.string(count: 16)
        let streamKey: String? = request.kind == .url ? nil : SecureRandom.string(count: IngressURL.keyLength, alphabet: IngressURL.keyAlphabet)
        let (input, url, port) = try ingressAddresses(request, streamKey: streamKey)
        let ingressSettings = IngressSettings(kind: request.kind, uid: request.uid, input: input, streamKey: streamKey,
                                              videoBitrate: request.videoBitrate, simulcast: request.simulcast,
                                              transcode: request.transcode, passesHigh: request.passesHigh)
        let info = IngressInfo(ingressId: id, channel: key.name, uid: request.uid, kind: request.kind, url: url, streamKey: streamKey,
                               status: .waiting, sessions: 0, restarts: 0, createdAt: Self.now())
        let i = Ingress(info: info, appId: appId, key: key, settings: ingressSettings)
        i.port = port
        ingresses[id] = i
        persist(i)
        launch(i)
        if i.worker != nil, !i.workerStarted { await wait("start:" + id, timeout: settings.startTimeout) }
        if i.info.status == .failed {
            throw EgressError(APIErrorCode.named(i.failure?.code) ?? .internalError, i.info.error ?? "the ingress could not start")
        }
        return i.info
    }

    /// Ends an ingress: its worker stops (a push in progress ends, its user leaves).
    func deleteIngress(appId: String, id: String) async throws(EgressError) -> IngressInfo {
        guard let i = ingresses[id], i.appId == appId else { throw EgressError(.notFound, "no ingress \(id)") }
        i.stopping = true
        if i.worker == nil {
            finish(i, status: .ended)
        } else {
            await awaitExit("exit:" + id, worker: i.worker) { ingresses[id] != nil }
        }
        return i.info
    }

    /// The ingresses of the app (of one channel when given), oldest first.
    func ingressList(appId: String, channel: String?) -> [IngressInfo] {
        ingresses.values.filter { $0.appId == appId && (channel == nil || $0.key.name == channel) }
            .map(\.info).sorted { ($0.createdAt, $0.ingressId) < ($1.createdAt, $1.ingressId) }
    }

    /// Starts again the ingresses this node stored (docs/ingress.md, "A server restart"): a
    /// server killed or restarted listens on the same ports for the same keys, so encoders that
    /// push again resume them. Runs once the server listens (the workers join through it).
    func resumeIngresses() async {
        while endpoint.httpURL == nil && !isShuttingDown { try? await TimerQueue.shared.sleep(for: .milliseconds(50)) }
        for (appId, var info, ingressSettings, port) in store.ingresses(nodeId: settings.nodeId) where ingresses[info.ingressId] == nil {
            guard !isShuttingDown else { return }
            info.status = .waiting
            info.error = nil
            info.media = nil
            let i = Ingress(info: info, appId: appId, key: ChannelKey(appId: appId, name: info.channel), settings: ingressSettings)
            i.port = port
            ingresses[info.ingressId] = i
            launch(i)
            Log.info("egress", "resumed ingress \(info.ingressId) (\(info.kind.rawValue)) of \(info.channel) as \(info.uid)")
        }
    }

    private func persist(_ i: Ingress) {
        store.save(i.info, appId: i.appId, nodeId: settings.nodeId, settings: i.settings, port: i.port)
    }

    // MARK: - Workers

    /// The URL the worker opens and the URL the API answers.
    private func ingressAddresses(_ request: IngressRequest, streamKey: String?) throws(EgressError) -> (input: String, url: String, port: UInt16?) {
        let bind = settings.ingressBind, host = settings.ingressHost
        switch request.kind {
        case .url:
            guard let url = request.pullURL else { throw EgressError(.invalidParameter, "a url ingress names the url to pull") }
            return (url, url, nil)
        case .rtmp:
            let port = try freePort(datagram: false)
            let key = streamKey ?? ""
            return ("rtmp://\(bind):\(port)/live/\(key)", "rtmp://\(host):\(port)/live/\(key)", port)
        case .srt:
            let port = try freePort(datagram: true)
            let key = streamKey ?? ""
            // The key is SRT's passphrase: a caller with another one fails the handshake
            // (libsrt's enforced encryption), which is where a wrong key must be refused. The
            // encoder's URL carries it as the stream id too (`streamid=`, the SRT Access Control
            // convention encoders expose), which libavformat's listener does not see.
            return ("srt://\(bind):\(port)?mode=listener&passphrase=\(key)", "srt://\(host):\(port)?streamid=\(key)&passphrase=\(key)", port)
        }
    }

    /// A port no other ingress holds (a listener between two connections looks free) and the
    /// machine has free, from `--ingress-ports` when set.
    private func freePort(datagram: Bool) throws(EgressError) -> UInt16 {
        let held = Set(ingresses.values.compactMap(\.port))
        if let range = settings.ingressPorts {
            for port in range where !held.contains(port) && FreePort.isFree(port, host: settings.ingressBind, datagram: datagram) {
                return port
            }
            throw EgressError(.limitReached, "no free port in --ingress-ports \(range.lowerBound)-\(range.upperBound)")
        }
        for _ in 0..<16 {
            do {
                let port = try FreePort.find(host: settings.ingressBind, datagram: datagram)
                if !held.contains(port) { return port }
            } catch {
                throw EgressError(.internalError, "no free port for the ingress listener: \(error)")
            }
        }
        throw EgressError(.internalError, "no free port for the ingress listener")
    }

    private func launch(_ i: Ingress) {
        i.generation += 1
        i.failure = nil
        do throws(EgressError) {
            let token = try workerToken(appId: i.appId, key: i.key, uid: i.settings.uid, publish: true, hidden: false)
            let task = WorkerTask(taskId: i.info.ingressId, serverURL: try serverURL(), channel: i.key.name, token: token,
                                  serverCertificate: endpoint.certificateFile, ingress: i.settings)
            i.worker = try spawn(task, generation: i.generation)
            scheduleTokenRefresh(i)
        } catch {
            i.failure = (error.code.name, error.message)
            i.info.error = error.message
            finish(i, status: .failed)
        }
    }

    func ingressEvent(_ i: Ingress, _ event: WorkerEvent) {
        let id = i.info.ingressId
        switch event {
        case .started:
            i.workerStarted = true
            i.backoff.workerStarted(atSeconds: Self.monotonicSeconds())
            if i.info.status == .restarting { i.info.status = .waiting }
            wake("start:" + id)
        case .inputStarted(let input):
            i.info.status = .publishing
            i.info.sessions += 1
            i.info.error = nil
            i.info.media = .init(videoCodec: input.videoCodec, audioCodec: input.audioCodec, width: input.width, height: input.height,
                                 videoMode: input.videoMode)
            persist(i)
            webhooks.send(i.key, event: "ingress_started", data: IngressEvent(ingress: i.info))
        case .inputChanged(let input):
            guard i.info.status == .publishing else { return }
            i.info.media = .init(videoCodec: input.videoCodec, audioCodec: input.audioCodec, width: input.width, height: input.height,
                                 videoMode: input.videoMode)
            persist(i)
        case .inputEnded(let reason):
            guard i.info.status == .publishing else { return }
            i.info.status = .waiting
            webhooks.send(i.key, event: "ingress_ended", data: IngressEvent(ingress: i.info, reason: reason))
        case .failed(let code, let message):
            i.failure = (code, message)
            i.info.error = message
        case .ended, .finished, .liveStarted, .liveEnded, .caption:
            break
        }
    }

    func ingressExited(_ i: Ingress, status: Int32) async {
        i.worker = nil
        let id = i.info.ingressId
        wake("start:" + id)
        if i.info.status == .publishing {
            i.info.status = .waiting
            webhooks.send(i.key, event: "ingress_ended", data: IngressEvent(ingress: i.info, reason: "error: the worker exited"))
        }
        // A pull ends with its URL; a listener that cannot listen will not after a restart either.
        if i.stopping || isShuttingDown || i.settings.kind == .url || i.failure?.code == "invalid_parameter" {
            let failed = i.failure != nil && !i.stopping
            finish(i, status: failed ? .failed : .ended)
            return
        }
        i.info.restarts += 1
        i.info.status = .restarting
        i.info.error = i.failure?.message ?? "the worker exited (status \(status))"
        persist(i)
        let delay = i.backoff.workerExited(atSeconds: Self.monotonicSeconds())
        let generation = i.generation
        afterDelay(delay) { $0.relaunchIngress(id, after: generation) }
    }

    /// A worker's token lives a day (`workerToken`); an ingress waits for pushes longer, so its
    /// worker gets a fresh one every `tokenRefreshSeconds` for the joins to come.
    static let tokenRefreshSeconds = 12.0 * 3600

    private func scheduleTokenRefresh(_ i: Ingress) {
        let id = i.info.ingressId, generation = i.generation
        afterDelay(Self.tokenRefreshSeconds) { supervisor in
            guard let i = supervisor.ingresses[id], i.generation == generation, let worker = i.worker,
                  let fresh = try? supervisor.workerToken(appId: i.appId, key: i.key, uid: i.settings.uid, publish: true, hidden: false) else { return }
            worker.send(.setToken(fresh))
            supervisor.scheduleTokenRefresh(i)
        }
    }

    private func relaunchIngress(_ id: String, after generation: Int) {
        guard let i = ingresses[id], i.generation == generation, !i.stopping, !isShuttingDown else { return }
        launch(i)
    }

    private func finish(_ i: Ingress, status: IngressInfo.Status) {
        let id = i.info.ingressId
        i.info.status = status
        i.info.endedAt = Self.now()
        ingresses[id] = nil
        // A server that stops keeps its ingresses for its next start; one that ends is gone.
        if !isShuttingDown { store.deleteIngress(id: id) }
        for name in ["start:", "exit:"] { wake(name + id) }
    }
}
