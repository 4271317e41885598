import EgressProtocol
@testable import EgressServer
import Foundation
import MediaTestSupport
import Synchronization
import TestWait
import Testing

/// A worker stops when its server is gone, not when the server thread that started it ends.
/// prctl(2)'s parent-death signal follows the spawning *thread*: a dispatch thread retired after
/// a few idle seconds ended the composite it had started (a 10 s recording of it held 5 s).
@Suite(.serialized) struct EgressWorkerParentTests {
    /// The server's own `WorkerProcess`, with its events and exit status kept.
    final class Worker: Sendable {
        final class Seen: Sendable {
            let events = Mutex<[WorkerEvent]>([])
            let exit = Mutex<Int32?>(nil)
        }

        let seen = Seen()
        let process: WorkerProcess

        init(executable: String) {
            let seen = self.seen
            process = WorkerProcess(executable: executable, onEvent: { e in seen.events.withLock { $0.append(e) } },
                                    onExit: { s in seen.exit.withLock { $0 = s } })
        }

        var events: [WorkerEvent] { seen.events.withLock { $0 } }
        var exit: Int32? { seen.exit.withLock { $0 } }
        var started: Bool { events.contains(.started) }
        var finished: Bool { events.contains { if case .finished = $0 { true } else { false } } }
    }

    static func recordingTask(_ server: EgressTestServer, _ name: String) -> WorkerTask {
        WorkerTask(taskId: "RC_\(name)", serverURL: server.url, channel: "parent", token: server.token(uid: "rec_\(name)", channel: "parent"),
                   recording: RecordingSettings(kind: .track, format: .webm, path: server.directory.file("\(name).webm"), uid: "alice",
                                                desc: "camera_big", video: true, audio: false, idleTimeoutSeconds: 60))
    }

    @Test func aWorkerOutlivesTheThreadThatStartedIt() async throws {
        let server = try EgressTestServer()
        let worker = Worker(executable: EgressModule.defaultWorkerPath)
        // Started on a thread of its own, which ends once the worker has joined (its parent-death
        // request is made before the join).
        try await offPool {
            try worker.process.start(Self.recordingTask(server, "thread"))
            let deadline = Date().addingTimeInterval(30)
            while !worker.started, worker.exit == nil, Date() < deadline { usleep(20_000) }
        }
        #expect(worker.started, "the worker joined: \(worker.events)")
        // The spawning thread has ended: the kernel has sent the parent-death signal by now.
        try await Task.sleep(for: .seconds(2))
        #expect(worker.exit == nil && !worker.finished,
                "the worker still runs after the thread that started it ended: \(worker.events)")

        // Told to stop, it finishes (no source came: nothing usable, but a clean end, status 0).
        worker.process.send(.stop)
        try await eventually(timeout: 15, "the worker ended") { worker.exit != nil }
        #expect(worker.exit == 0 && worker.finished, "\(worker.events)")
        await server.stop()
    }

    /// The other side: a worker whose parent really dies (`kill -9`, its standard input still open
    /// elsewhere, so only the parent-death signal tells it) finishes and says so.
    @Test func aWorkerWhoseParentDiesFinishes() async throws {
        let server = try EgressTestServer()
        // A shell stands in for the server: the worker is its child, with the pipes `WorkerProcess`
        // made (dash gives a background command /dev/null as its input unless it is redirected
        // from another descriptor).
        let script = server.directory.file("parent.sh")
        try "#!/bin/sh\nexec 3<&0\n'\(EgressModule.defaultWorkerPath)' <&3 3<&- &\nwait\n".write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o755)
        let worker = Worker(executable: script)
        try worker.process.start(Self.recordingTask(server, "orphan"))
        try await eventually(timeout: 30, "the worker joined") { worker.started }
        #expect(!worker.finished)
        worker.process.kill()  // the shell: the worker is reparented
        try await eventually(timeout: 15, "the orphaned worker finished") { worker.finished }
        worker.process.closeInput()
        await server.stop()
    }
}
