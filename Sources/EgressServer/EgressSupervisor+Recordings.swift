import EgressProtocol
import Foundation
import RTCCrypto
import SRTCProtocol
import SRTCServer

// Recordings: one worker per recording, never restarted (a restart would be a new file); what its
// worker reports decides the final status, and a worker that dies leaves an `incomplete` file.
extension EgressSupervisor {
    /// What a recording records, resolved from the request against the live channel.
    struct RecordingSource: Sendable {
        var kind: RecordingKind
        var uid: String
        var desc: String?
        var video: Bool
        var audio: Bool
    }

    // MARK: - API

    /// Starts a recording; returns once its worker joined (or the start timeout).
    func startRecording(appId: String, key: ChannelKey, source: RecordingSource, format: RecordingFormat,
                        idleTimeoutSeconds: Int, e2ee: EgressE2EEKeys? = nil) async throws(EgressError) -> RecordingInfo {
        guard !isShuttingDown else { throw EgressError(.wrongState, "the server is shutting down") }
        if recordings.values.contains(where: { $0.key == key && $0.info.uid == source.uid && $0.info.desc == source.desc && $0.info.format == format }) {
            throw EgressError(.alreadyExists, "this source of channel \(key.name) is already being recorded as \(format.rawValue)")
        }
        guard activeCount < settings.maxTasks else { throw EgressError(.limitReached, "this node runs \(settings.maxTasks) egress tasks, its limit") }
        guard let root = settings.recordingDirectory else { throw EgressError(.storageFailed, "no recording directory is configured") }
        let id = "RC_" + SecureRandom.string(count: 16)
        let relative = "\(appId)/\(key.name)/\(id).\(format.fileExtension)"
        let directory = root + "/" + appId + "/" + key.name
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw EgressError(.storageFailed, "cannot create the recording directory: \(error.localizedDescription)")
        }
        guard access(directory, W_OK) == 0 else { throw EgressError(.storageFailed, "the recording directory is not writable") }
        let path = root + "/" + relative
        let info = RecordingInfo(recordingId: id, channel: key.name, kind: source.kind, format: format, uid: source.uid, desc: source.desc,
                                 file: relative, status: .starting, startedAt: Self.now())
        do { try store.insert(info, appId: appId, path: path) } catch {
            throw EgressError(.internalError, "cannot store the recording: \(error)")
        }
        let recordingSettings = RecordingSettings(kind: source.kind, format: format, path: path, uid: source.uid, desc: source.desc,
                                                  video: source.video, audio: source.audio, idleTimeoutSeconds: idleTimeoutSeconds)
        let r = Recording(info: info, appId: appId, key: key, path: path, settings: recordingSettings)
        r.e2ee = e2ee
        recordings[id] = r
        do throws(EgressError) {
            let task = WorkerTask(taskId: id, serverURL: try serverURL(), channel: key.name,
                                  token: try workerToken(appId: appId, key: key, uid: "rec_" + id, publish: false), recording: recordingSettings,
                                  serverCertificate: endpoint.certificateFile, e2ee: e2ee)
            r.worker = try spawn(task, generation: 1)
        } catch {
            r.failure = (error.code.name, error.message)
            finish(r)
            throw error
        }
        if r.info.status == .starting { await wait("start:" + id, timeout: settings.startTimeout) }
        if r.info.status == .failed || r.failure != nil {
            let failure = r.failure
            if recordings[id] != nil { _ = try? await stopRecording(appId: appId, id: id) }
            throw EgressError(APIErrorCode.named(failure?.code) ?? .internalError, failure?.message ?? "the recording could not start")
        }
        return r.info
    }

    /// Stops a recording: its worker finalizes the file. Returns the final record.
    func stopRecording(appId: String, id: String) async throws(EgressError) -> RecordingInfo {
        guard let r = recordings[id], r.appId == appId else {
            if let stored = store.recording(appId: appId, id: id)?.info { return stored }
            throw EgressError(.notFound, "no recording \(id)")
        }
        r.stopping = true
        await awaitExit("exit:" + id, worker: r.worker) { recordings[id] != nil }
        return r.info
    }

    /// Hands more per-participant keys to a running recording or composite (the trusted
    /// recorder; `e2ee/keys`). The task must have been started with per-participant keys.
    func addE2EEKeys(appId: String, key: ChannelKey, recordingId: String?, compositeUid: String?,
                     keys: [EgressE2EEKeys.ParticipantKey]) throws(EgressError) {
        let worker: WorkerProcess?
        if let recordingId {
            guard let r = recordings[recordingId], r.appId == appId, r.key == key else { throw EgressError(.notFound, "no running recording \(recordingId)") }
            r.e2ee = try Self.merged(r.e2ee, keys)
            worker = r.worker
        } else if let compositeUid {
            let c = try composite(key, uid: compositeUid)
            c.e2ee = try Self.merged(c.e2ee, keys)
            worker = c.worker
        } else {
            throw EgressError(.invalidParameter, "e2ee/keys names recording_id or the composite's uid")
        }
        worker?.send(.setE2EEKeys(EgressE2EEKeys(keys: keys)))
    }

    private static func merged(_ current: EgressE2EEKeys?, _ added: [EgressE2EEKeys.ParticipantKey]) throws(EgressError) -> EgressE2EEKeys {
        guard let current, current.passphrase == nil else {
            throw EgressError(.wrongState, current == nil ? "the task was started without e2ee keys" : "the task decrypts with a passphrase; keys cannot be added")
        }
        let all = (current.keys ?? []).filter { old in !added.contains { $0.uid == old.uid && $0.index == old.index } } + added
        let keys = EgressE2EEKeys(keys: all)
        if let problem = keys.problem { throw EgressError(.invalidParameter, problem) }
        return keys
    }

    /// Recordings of the app, newest first (running and finished).
    func recordingList(appId: String, channel: String?, status: RecordingInfo.Status?, limit: Int) -> [RecordingInfo] {
        store.recordings(appId: appId, channel: channel, status: status, limit: limit)
    }

    // MARK: - Workers

    func recordingEvent(_ r: Recording, _ event: WorkerEvent) {
        switch event {
        case .started:
            r.info.status = .recording
            store.update(r.info)
            wake("start:" + r.info.recordingId)
        case .failed(let code, let message):
            r.failure = (code, message)
            r.info.error = "\(code): \(message)"
            wake("start:" + r.info.recordingId)
        case .finished(let result):
            r.result = result
        case .ended, .liveStarted, .liveEnded, .inputStarted, .inputChanged, .inputEnded, .caption:
            break
        }
    }

    func recordingExited(_ r: Recording, status: Int32) {
        r.worker = nil
        finish(r)
    }

    /// The recording is over: final status from what the worker reported (nothing reported: the
    /// worker died, and the file holds what was written up to then), stored, webhook sent.
    func finish(_ r: Recording) {
        let id = r.info.recordingId
        let ended = Self.now()
        r.info.endedAt = ended
        if let result = r.result {
            r.info.sizeBytes = result.bytes
            r.info.durationMs = result.durationMs
            if r.failure != nil {
                r.info.status = .failed
            } else if result.complete && result.videoFrames + result.audioFrames > 0 {
                r.info.status = .finished
            } else {
                r.info.status = .failed
                r.info.error = r.info.error ?? "no media arrived"
            }
        } else {
            r.info.status = r.failure != nil && !FileManager.default.fileExists(atPath: r.path) ? .failed : .incomplete
            r.info.sizeBytes = Self.fileSize(r.path)
            r.info.durationMs = ended - r.info.startedAt
            if r.info.error == nil { r.info.error = "the recording worker exited before finishing the file" }
        }
        store.update(r.info)
        recordings[id] = nil
        webhooks.send(r.key, event: "recording_finished", data: r.info)
        wake("start:" + id)
        wake("exit:" + id)
    }

    static func fileSize(_ path: String) -> Int64? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value
    }

    /// Marks recordings a previous run left open `incomplete` (their files end where the crash
    /// cut them) and sends their `recording_finished`.
    func recoverInterruptedRecordings() {
        for (appId, var info, path) in store.unfinishedRecordings() {
            let attributes = try? FileManager.default.attributesOfItem(atPath: path)
            let modified = (attributes?[.modificationDate] as? Date).map { Int64($0.timeIntervalSince1970 * 1000) }
            info.status = .incomplete
            info.endedAt = max(info.startedAt, modified ?? info.startedAt)
            info.durationMs = (info.endedAt ?? info.startedAt) - info.startedAt
            info.sizeBytes = (attributes?[.size] as? NSNumber)?.int64Value
            info.error = "the server stopped while recording"
            store.update(info)
            webhooks.send(ChannelKey(appId: appId, name: info.channel), event: "recording_finished", data: info)
        }
    }
}
