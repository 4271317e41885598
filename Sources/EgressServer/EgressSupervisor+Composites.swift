import EgressProtocol
import Foundation
import RTCCrypto
import SRTCProtocol
import SRTCServer

// Composites and their live output.
extension EgressSupervisor {
    /// Reasons a worker gives for ending that are final; any other end (a crash, an expired token,
    /// a lost connection) restarts the composite.
    static let finalEndReasons: Set<String> = ["stopped", "idle", "channel_closed", "kicked", "failed"]

    // MARK: - API

    /// Starts a composite of `key` published under `settings.uid`; returns once it runs (or the start timeout).
    /// - Parameter requireLive: refuse a channel nobody is in (the API); a `.mix` meeting starts its
    ///   composite before its members join.
    func startComposite(appId: String, key: ChannelKey, settings: CompositeSettings, requireLive: Bool,
                        e2ee: EgressE2EEKeys? = nil) async throws(EgressError) -> CompositeInfo {
        guard !isShuttingDown else { throw EgressError(.wrongState, "the server is shutting down") }
        if composites.values.contains(where: { $0.key == key && $0.settings.uid == settings.uid }) {
            throw EgressError(.alreadyExists, "channel \(key.name) already has a composite under uid \(settings.uid)")
        }
        guard activeCount < self.settings.maxTasks else {
            throw EgressError(.limitReached, "this node runs \(self.settings.maxTasks) egress tasks, its limit")
        }
        if requireLive, await channels.tracks(key) == nil { throw EgressError(.notFound, "channel \(key.name) is not live") }
        if await channels.users(key).contains(settings.uid) {
            throw EgressError(.alreadyExists, "uid \(settings.uid) is a user in channel \(key.name)")
        }
        let info = CompositeInfo(compositeId: "CP_" + SecureRandom.string(count: 16), channel: key.name, uid: settings.uid,
                                 layout: settings.layout, width: settings.width, height: settings.height, frameRate: settings.frameRate,
                                 bitrate: settings.bitrate, audio: settings.audio, status: .starting, restarts: 0, startedAt: Self.now())
        let c = Composite(info: info, appId: appId, key: key, settings: settings)
        c.e2ee = e2ee
        composites[info.compositeId] = c
        store.insert(info, appId: appId, settings: settings)
        launch(c)
        if c.info.status == .starting { await wait("start:" + info.compositeId, timeout: self.settings.startTimeout) }
        if c.info.status == .failed {
            throw EgressError(APIErrorCode.named(c.failure?.code) ?? .internalError, c.info.error ?? "the composite could not start")
        }
        return c.info
    }

    /// Changes a running composite's layout without restarting it.
    func setLayout(appId: String, key: ChannelKey, uid: String, layout: EgressLayout) throws(EgressError) -> CompositeInfo {
        let c = try composite(key, uid: uid)
        c.settings.layout = layout
        c.info.layout = layout
        c.worker?.send(.setLayout(layout))
        return c.info
    }

    /// Stops a composite (and its live output); returns its final state.
    func stopComposite(appId: String, key: ChannelKey, uid: String) async throws(EgressError) -> CompositeInfo {
        let c = try composite(key, uid: uid)
        c.stopping = true
        let id = c.info.compositeId
        if c.worker == nil {
            finish(c, status: .stopped)
        } else {
            await awaitExit("exit:" + id, worker: c.worker) { composites[id] != nil }
        }
        return c.info
    }

    /// The composites running in `key` (every channel of the app when nil).
    func composites(appId: String, channel: String?) -> [CompositeInfo] {
        composites.values.filter { $0.appId == appId && (channel == nil || $0.key.name == channel) }
            .map(\.info).sorted { ($0.startedAt, $0.compositeId) < ($1.startedAt, $1.compositeId) }
    }

    /// Starts live output of a composite: HLS served at `/live/<app_id>/<channel>/`, and/or RTMP.
    func startLive(appId: String, key: ChannelKey, uid: String, hls: Bool, rtmpURL: String?) async throws(EgressError) -> CompositeInfo {
        let c = try composite(key, uid: uid)
        if let live = c.info.live, live.status == .starting || live.status == .live {
            throw EgressError(.alreadyExists, "composite \(uid) is already live")
        }
        var directory: String?
        if hls {
            if composites.values.contains(where: { $0 !== c && $0.key == key && $0.live?.hlsDirectory != nil }) {
                throw EgressError(.alreadyExists, "channel \(key.name) already streams HLS")
            }
            guard let root = settings.liveDirectory else { throw EgressError(.storageFailed, "no live directory is configured") }
            let path = root + "/" + appId + "/" + key.name
            // A previous stream's playlist and segments go; the muxer writes new ones.
            try? FileManager.default.removeItem(atPath: path)
            do {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            } catch {
                throw EgressError(.storageFailed, "cannot create \(path): \(error.localizedDescription)")
            }
            directory = path
        }
        let live = LiveSettings(hlsDirectory: directory, rtmpURL: rtmpURL, videoBitrate: c.settings.bitrate)
        c.live = live
        c.info.live = LiveInfo(hlsURL: hls ? "/live/\(appId)/\(key.name)/index.m3u8" : nil, rtmpURL: rtmpURL, status: .starting, startedAt: Self.now())
        c.worker?.send(.startLive(live))
        await wait("live:" + c.info.compositeId, timeout: settings.startTimeout)
        if c.info.live?.status == .failed { throw EgressError(.internalError, "live output failed: \(c.info.live?.error ?? "?")") }
        return c.info
    }

    /// Stops a composite's live output.
    func stopLive(appId: String, key: ChannelKey, uid: String) async throws(EgressError) -> CompositeInfo {
        let c = try composite(key, uid: uid)
        guard let live = c.info.live, live.status == .starting || live.status == .live else {
            throw EgressError(.notFound, "composite \(uid) is not live")
        }
        c.live = nil
        c.worker?.send(.stopLive)
        await wait("live:" + c.info.compositeId, timeout: settings.stopTimeout)
        return c.info
    }

    // MARK: - Workers

    func composite(_ key: ChannelKey, uid: String) throws(EgressError) -> Composite {
        guard let c = composites.values.first(where: { $0.key == key && $0.settings.uid == uid }) else {
            throw EgressError(.notFound, "no composite under uid \(uid) in channel \(key.name)")
        }
        return c
    }

    /// Starts (or restarts) a composite's worker.
    private func launch(_ c: Composite) {
        c.generation += 1
        c.endReason = nil
        c.failure = nil
        do throws(EgressError) {
            let task = WorkerTask(taskId: c.info.compositeId, serverURL: try serverURL(), channel: c.key.name,
                                  token: try workerToken(appId: c.appId, key: c.key, uid: c.settings.uid, publish: true),
                                  composite: c.settings, live: c.live, serverCertificate: endpoint.certificateFile, e2ee: c.e2ee)
            c.worker = try spawn(task, generation: c.generation)
        } catch {
            c.failure = (error.code.name, error.message)
            c.info.error = error.message
            finish(c, status: .failed)
        }
    }

    func compositeEvent(_ c: Composite, _ event: WorkerEvent) {
        let id = c.info.compositeId
        switch event {
        case .started:
            c.info.status = .running
            c.info.error = nil
            c.backoff.workerStarted(atSeconds: Self.monotonicSeconds())
            store.update(c.info)
            wake("start:" + id)
        case .liveStarted:
            c.info.live?.status = .live
            c.info.live?.error = nil
            if let live = c.info.live { webhooks.send(c.key, event: "live_started", data: LiveEvent(uid: c.settings.uid, live: live)) }
            wake("live:" + id)
        case .liveEnded(let error):
            guard var live = c.info.live, live.status != .ended, live.status != .failed else { return }
            live.status = error == nil ? .ended : .failed
            live.error = error
            live.endedAt = Self.now()
            c.info.live = live
            c.live = nil
            webhooks.send(c.key, event: "live_ended", data: LiveEvent(uid: c.settings.uid, live: live))
            wake("live:" + id)
        case .failed(let code, let message):
            c.failure = (code, message)
            c.info.error = message
        case .ended(let reason):
            c.endReason = reason
        case .finished, .inputStarted, .inputChanged, .inputEnded, .caption:
            break
        }
    }

    func compositeExited(_ c: Composite, status: Int32) async {
        c.worker = nil
        let final = c.stopping || isShuttingDown || c.endReason.map(Self.finalEndReasons.contains) ?? false
        // A worker that could not even start for a reason a restart cannot fix stays down.
        let unfixable = c.info.status == .starting && ["invalid_parameter", "not_found"].contains(c.failure?.code ?? "")
        if final || unfixable {
            finish(c, status: c.failure != nil && c.info.status == .starting ? .failed : .stopped)
            return
        }
        c.info.restarts += 1
        c.info.status = .restarting
        c.info.error = c.failure?.message ?? "the worker exited (status \(status))"
        store.update(c.info)
        let delay = c.backoff.workerExited(atSeconds: Self.monotonicSeconds())
        let id = c.info.compositeId, generation = c.generation
        afterDelay(delay) { $0.relaunch(id, after: generation) }
    }

    private func relaunch(_ id: String, after generation: Int) {
        guard let c = composites[id], c.generation == generation, !c.stopping, !isShuttingDown else { return }
        launch(c)
    }

    /// A composite is over: final state stored, live output reported ended, waiters woken.
    private func finish(_ c: Composite, status: CompositeInfo.Status) {
        let id = c.info.compositeId
        c.info.status = status
        c.info.endedAt = Self.now()
        if var live = c.info.live, live.status == .starting || live.status == .live {
            live.status = .ended
            live.endedAt = c.info.endedAt
            c.info.live = live
            webhooks.send(c.key, event: "live_ended", data: LiveEvent(uid: c.settings.uid, live: live))
        }
        store.update(c.info)
        composites[id] = nil
        for name in ["start:", "live:", "exit:"] { wake(name + id) }
    }
}

/// The data of `live_started` / `live_ended` webhooks.
struct LiveEvent: Encodable, Sendable {
    var uid: String
    var live: LiveInfo
}

extension APIErrorCode {
    /// The code of an error name (`storage_failed` …), as workers report it.
    static func named(_ name: String?) -> APIErrorCode? {
        guard let name else { return nil }
        return allCases.first { $0.name == name }
    }
}
