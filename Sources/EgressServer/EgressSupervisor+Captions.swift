import EgressProtocol
import Foundation
import RTCCrypto
import RTCNet
import SRTCProtocol
import SRTCServer

// Live captions (docs/captions.md): one `srtc-egress` worker per channel runs a captioning agent
// as a hidden participant; each caption it reports is sent to the channel's users (`caption`
// event) and, when final, stored. A worker that dies is restarted with backoff, as composites are.
extension EgressSupervisor {
    final class CaptionRun {
        var info: CaptionsInfo
        let appId: String
        let key: ChannelKey
        let settings: CaptionSettings
        var worker: WorkerProcess?
        var generation = 0
        var stopping = false
        /// Why the worker ended on its own, when it said so.
        var endReason: String?
        var failure: (code: String, message: String)?
        var backoff = RestartBackoff()
        /// Finals stored so far: the next one's `seq`.
        var stored = 0
        /// Whether `captions_started` went out (once per run, not per restart).
        var announced = false

        init(info: CaptionsInfo, appId: String, key: ChannelKey, settings: CaptionSettings) {
            self.info = info
            self.appId = appId
            self.key = key
            self.settings = settings
        }
    }

    // MARK: - API

    /// Starts captions in the live channel `key`; returns once the worker heard the channel (or
    /// the start timeout passed).
    func startCaptions(appId: String, key: ChannelKey, language: String) async throws(EgressError) -> CaptionsInfo {
        guard !isShuttingDown else { throw EgressError(.wrongState, "the server is shutting down") }
        let users = await channels.users(key)
        // Checked after the await (the actor may have taken another start meanwhile), with no
        // await between them and the insert below.
        if captionRuns.values.contains(where: { $0.key == key }) {
            throw EgressError(.alreadyExists, "captions are already running in channel \(key.name)")
        }
        guard !users.isEmpty else { throw EgressError(.notFound, "channel \(key.name) is not live") }
        guard activeCount < settings.maxTasks else { throw EgressError(.limitReached, "this node runs \(settings.maxTasks) egress tasks, its limit") }
        let id = "CC_" + SecureRandom.string(count: 16)
        let info = CaptionsInfo(captionsId: id, channel: key.name, language: language, status: .starting, restarts: 0, startedAt: Self.now())
        let run = CaptionRun(info: info, appId: appId, key: key,
                             settings: CaptionSettings(uid: "srtc-captions-" + SecureRandom.string(count: 8), language: language))
        captionRuns[id] = run
        store.saveCaptionRun(run.info, appId: appId, nodeId: settings.nodeId, settings: run.settings)
        launch(run)
        if run.info.status == .starting { await wait("start:" + id, timeout: settings.startTimeout) }
        if run.info.status == .failed {
            throw EgressError(APIErrorCode.named(run.failure?.code) ?? .internalError, run.info.error ?? "captions could not start")
        }
        return run.info
    }

    /// Stops the captions of `key`: each speaker's turn in progress gets its final first.
    func stopCaptions(appId: String, key: ChannelKey) async throws(EgressError) -> CaptionsInfo {
        guard let run = captionRuns.values.first(where: { $0.key == key }) else {
            throw EgressError(.wrongState, "captions are not running in channel \(key.name)")
        }
        run.stopping = true
        let id = run.info.captionsId
        if run.worker == nil {
            finish(run, status: .stopped, reason: "stopped")
        } else {
            await awaitExit("exit:" + id, worker: run.worker) { captionRuns[id] != nil }
        }
        return run.info
    }

    /// The captions running in `key`, if any.
    func runningCaptions(key: ChannelKey) -> CaptionsInfo? {
        captionRuns.values.first { $0.key == key }?.info
    }

    /// Resumes the captions this node left running when it died (`kill -9`, a crash: a graceful
    /// stop ends them), once the server listens: each with a new worker that joins the channel as
    /// its users come back, counted as a restart, its transcript going on under the same id. A
    /// channel nobody comes back to ends them as `idle` (the worker's idle timeout).
    func resumeCaptions() async {
        while endpoint.httpURL == nil && !isShuttingDown { try? await TimerQueue.shared.sleep(for: .milliseconds(50)) }
        for (appId, var info, captionSettings) in store.captionRuns(nodeId: settings.nodeId) where captionRuns[info.captionsId] == nil {
            guard !isShuttingDown else { return }
            info.status = .restarting
            info.restarts += 1
            info.error = "the server restarted"
            let run = CaptionRun(info: info, appId: appId, key: ChannelKey(appId: appId, name: info.channel), settings: captionSettings)
            run.announced = true   // `captions_started` went out in the server's previous life
            run.stored = store.nextCaptionSeq(captionsId: info.captionsId)
            captionRuns[info.captionsId] = run
            store.saveCaptionRun(run.info, appId: appId, nodeId: settings.nodeId, settings: captionSettings)
            launch(run)
            Log.info("egress", "resumed captions \(info.captionsId) of \(info.channel)")
        }
    }

    // MARK: - Workers

    private func launch(_ run: CaptionRun) {
        run.generation += 1
        run.endReason = nil
        run.failure = nil
        do throws(EgressError) {
            let token = try workerToken(appId: run.appId, key: run.key, uid: run.settings.uid, publish: false)
            let task = WorkerTask(taskId: run.info.captionsId, serverURL: try serverURL(), channel: run.key.name, token: token,
                                  serverCertificate: endpoint.certificateFile, captions: run.settings)
            run.worker = try spawn(task, generation: run.generation)
        } catch {
            run.failure = (error.code.name, error.message)
            run.info.error = error.message
            finish(run, status: .failed, reason: "failed")
        }
    }

    func captionEvent(_ run: CaptionRun, _ event: WorkerEvent) async {
        let id = run.info.captionsId
        switch event {
        case .started:
            run.info.status = .running
            run.info.error = nil
            run.backoff.workerStarted(atSeconds: Self.monotonicSeconds())
            if !run.announced {
                run.announced = true
                webhooks.send(run.key, event: "captions_started", data: CaptionsEvent(captions: run.info))
            }
            wake("start:" + id)
        case .caption(let line):
            if line.final {
                let entry = CaptionEntry(captionsId: id, uid: line.uid, startMs: line.startMs, endMs: line.endMs, text: line.text)
                store.insertCaption(entry, seq: run.stored, appId: run.appId, channel: run.key.name)
                run.stored += 1
            }
            // Awaited here, on the one message stream: each speaker's captions reach users in order.
            await channels.caption(run.key, line)
        case .failed(let code, let message):
            run.failure = (code, message)
            run.info.error = message
        case .ended(let reason):
            run.endReason = reason
        case .finished, .liveStarted, .liveEnded, .inputStarted, .inputChanged, .inputEnded:
            break
        }
    }

    func captionExited(_ run: CaptionRun, status: Int32) async {
        run.worker = nil
        if run.stopping || isShuttingDown {
            finish(run, status: .stopped, reason: "stopped")
            return
        }
        // The channel emptied (idle) or dropped the worker for good: over, not a crash.
        if let reason = run.endReason, reason == "idle" || reason == "disconnected" {
            finish(run, status: .ended, reason: reason == "idle" ? "idle" : "channel_closed")
            return
        }
        // A worker that could not start for a reason a restart cannot fix stays down.
        if run.info.status == .starting, ["invalid_parameter", "not_found"].contains(run.failure?.code ?? "") {
            finish(run, status: .failed, reason: "failed")
            return
        }
        run.info.restarts += 1
        run.info.status = .restarting
        run.info.error = run.failure?.message ?? "the worker exited (status \(status))"
        store.saveCaptionRun(run.info, appId: run.appId, nodeId: settings.nodeId, settings: run.settings)
        let delay = run.backoff.workerExited(atSeconds: Self.monotonicSeconds())
        let id = run.info.captionsId, generation = run.generation
        afterDelay(delay) { $0.relaunchCaptions(id, after: generation) }
    }

    private func relaunchCaptions(_ id: String, after generation: Int) {
        guard let run = captionRuns[id], run.generation == generation, !run.stopping, !isShuttingDown else { return }
        launch(run)
    }

    private func finish(_ run: CaptionRun, status: CaptionsInfo.Status, reason: String) {
        let id = run.info.captionsId
        run.info.status = status
        run.info.endedAt = Self.now()
        captionRuns[id] = nil
        store.deleteCaptionRun(id: id)
        if run.announced { webhooks.send(run.key, event: "captions_ended", data: CaptionsEvent(captions: run.info, reason: reason)) }
        for name in ["start:", "exit:"] { wake(name + id) }
    }
}
