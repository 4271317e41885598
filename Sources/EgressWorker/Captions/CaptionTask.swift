import EgressProtocol
import Foundation
import SRTC
import SRTCAgents
import Synchronization

/// Live captions (docs/captions.md): an `SRTCAgents.Agent` joins as a hidden participant, hears
/// every user's audio, and each transcript (partials while they speak, a final per turn) goes to
/// the server as a `caption` event, which stores the finals and sends every caption to the
/// channel's users. The same agent machinery as `srtc agent captions`, supervised by the server.
public final class CaptionTask: EgressTask, Sendable {
    private let task: WorkerTask
    private let settings: CaptionSettings
    private let events: WorkerEvents
    private let endRequest: @Sendable (String) -> Void
    private let agent: Agent
    /// Unix milliseconds at the agent's clock zero: captions carry wall-clock times, so a
    /// restarted worker's captions sort with its predecessor's.
    private let unixAtAgentZero: Int64
    private let loop = Mutex<Task<Void, Never>?>(nil)
    private let watch = Mutex<Task<Void, Never>?>(nil)
    private let stopped = Atomic<Bool>(false)
    /// Seconds in a row the channel had no user.
    private let idleSeconds = Mutex(0)

    public init(task: WorkerTask, settings: CaptionSettings, events: WorkerEvents,
                endRequest: @escaping @Sendable (String) -> Void) throws {
        guard CaptionSettings.languages.contains(settings.language) else {
            throw WorkerFailure("invalid_parameter", "no recognizer model for language \(settings.language)")
        }
        self.task = task
        self.settings = settings
        self.events = events
        self.endRequest = endRequest
        do {
            var configuration = Agent.Configuration(speechToText: try PocketSphinxSpeechToText())
            configuration.trustedCAFile = task.serverCertificate
            agent = try Agent(configuration: configuration)
        } catch {
            throw WorkerFailure("internal_error", "the recognizer cannot run: \(error)")
        }
        unixAtAgentZero = Int64(Date().timeIntervalSince1970 * 1000) - Int64(agent.clockMs)
    }

    // MARK: - EgressTask

    public func start() async throws {
        do {
            try await agent.join(url: task.serverURL, token: task.token)
        } catch {
            throw WorkerFailure("internal_error", "captions could not join: \(error)")
        }
        let agent = self.agent, events = self.events, zero = unixAtAgentZero
        loop.withLock {
            $0 = Task {
                for await event in agent.events {
                    guard case .transcript(let uid, let t) = event, !t.text.isEmpty else { continue }
                    events.emit(.caption(Caption(uid: uid, text: t.text, final: t.final,
                                                 startMs: zero + Int64(t.startMs), endMs: zero + Int64(t.endMs))))
                }
            }
        }
        watchIdle()
        events.emit(.started)
    }

    public func handle(_ command: WorkerCommand) async {}

    /// Leaves: each speaker's turn is finalised first, so a sentence cut by `stop` still gets its final.
    public func stop(reason: String) async {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        watch.withLock { $0?.cancel(); $0 = nil }
        await agent.leave()
        await loop.withLock { $0 }?.value
        events.emit(.ended(reason: reason))
    }

    // MARK: - Internals

    /// Ends the task when the channel stayed without users for the idle timeout, or dropped us:
    /// a check a second.
    private func watchIdle() {
        let watcher = WorkerTimers.everySecond { [weak self] in
            guard let self else { return false }
            checkIdle()
            return true
        }
        watch.withLock { $0 = watcher }
    }

    /// Once a second.
    private func checkIdle() {
        let channel = agent.channel
        if channel.connectionState == .disconnected { endRequest("disconnected"); return }
        let idle = idleSeconds.withLock { s -> Int in
            s = channel.users.isEmpty ? s + 1 : 0
            return s
        }
        if idle >= settings.idleTimeoutSeconds { endRequest("idle") }
    }
}
