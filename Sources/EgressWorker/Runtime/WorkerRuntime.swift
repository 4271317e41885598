import EgressProtocol
import Foundation
import Synchronization
#if canImport(Glibc)
import CSystem
import Glibc
#endif

/// The `srtc-egress` process: reads its task from the first line of standard input, runs it,
/// takes commands from the following lines, reports events on standard output, and finishes
/// cleanly on `stop`, SIGTERM / SIGINT, the end of standard input, or the death of the server
/// (`watchParent`). Finishing writes every file's trailer.
public enum WorkerRuntime {
    /// Runs the worker; returns the process exit status (0 done, 2 a bad task line, 1 a failed start).
    public static func run() async -> Int32 {
        // A write to the server's end of the pipe after it died must fail, not kill the worker
        // before its files are finished.
        signal(SIGPIPE, SIG_IGN)
        let output = StandardOutputEvents()
        guard let line = readLine(strippingNewline: true) else {
            output.emit(.failed(code: "malformed_body", message: "no task on standard input"))
            return 2
        }
        let task: WorkerTask
        do throws(WorkerCodec.DecodeError) {
            task = try WorkerCodec.task(from: line)
        } catch {
            output.emit(.failed(code: "malformed_body", message: "bad task line: \(error)"))
            return 2
        }
        let stops = StopRequests()
        watchParent(stops)
        let egress: EgressTask
        do {
            egress = try makeTask(task, events: output) { reason in stops.request(reason) }
        } catch {
            let failure = error as? WorkerFailure ?? WorkerFailure("invalid_parameter", "\(error)")
            output.emit(.failed(code: failure.code, message: failure.message))
            return 2
        }
        for sig in [SIGTERM, SIGINT] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { stops.request("stopped") }
            source.resume()
            stops.keep(source)
        }
        do {
            try await egress.start()
        } catch let failure as WorkerFailure {
            output.emit(.failed(code: failure.code, message: failure.message))
            await egress.stop(reason: "failed")
            return 1
        } catch {
            output.emit(.failed(code: "internal_error", message: "\(error)"))
            await egress.stop(reason: "failed")
            return 1
        }
        readCommands(into: egress, stops: stops)
        let reason = await stops.next()
        await egress.stop(reason: reason)
        return 0
    }

    static func makeTask(_ task: WorkerTask, events: WorkerEvents, endRequest: @escaping @Sendable (String) -> Void) throws -> EgressTask {
        if let composite = task.composite {
            return try CompositeTask(task: task, settings: composite, events: events, endRequest: endRequest)
        }
        if let recording = task.recording {
            return RecordTask(task: task, settings: recording, video: recording.video, audio: recording.audio,
                              events: events, endRequest: endRequest)
        }
        if let ingress = task.ingress {
            return IngressTask(task: task, settings: ingress, events: events, endRequest: endRequest)
        }
        if let captions = task.captions {
            return try CaptionTask(task: task, settings: captions, events: events, endRequest: endRequest)
        }
        throw WorkerFailure("invalid_parameter", "the task names no composite, recording, ingress or captions")
    }

    /// Commands, one per line, until the end of standard input (which stops the task).
    private static func readCommands(into task: EgressTask, stops: StopRequests) {
        let thread = Thread {
            while let line = readLine(strippingNewline: true) {
                guard let command = try? WorkerCodec.command(from: line) else {
                    FileHandle.standardError.write(Data("srtc-egress: ignoring a bad command line\n".utf8))
                    continue
                }
                if command == .stop { stops.request("stopped"); continue }
                Task { await task.handle(command) }
            }
            stops.request("stopped")
        }
        thread.name = "srtc-egress-commands"
        thread.start()
    }

    /// Stops the task when the server (the parent) dies, so files are finalized. The kernel's
    /// parent-death signal (prctl(2) PR_SET_PDEATHSIG) comes when the *thread* that spawned this
    /// process ends, not only when the server does: a server thread that the dispatch pool retires
    /// after a few idle seconds took its composites with it (a 10 s recording of a composite held
    /// 5 s under load). So the signal is SIGUSR2, not SIGTERM, and only a parent that is gone
    /// (this process reparented: `getppid()` changed) stops the task. The end of standard input
    /// says the same; this covers a server whose pipe outlives it.
    private static func watchParent(_ stops: StopRequests) {
        #if os(Linux)
        let parent = getppid()
        signal(SIGUSR2, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGUSR2, queue: .global())
        source.setEventHandler { if getppid() != parent { stops.request("stopped") } }
        source.resume()
        stops.keep(source)
        _ = srtc_set_parent_death_signal(SIGUSR2)
        // The parent may have died before the request: then nobody will send it.
        if getppid() != parent { stops.request("stopped") }
        #endif
    }
}

/// Events as JSON lines on standard output, one write per line.
final class StandardOutputEvents: WorkerEvents, Sendable {
    private let lock = Mutex(())

    func emit(_ event: WorkerEvent) {
        let line = WorkerCodec.line(event) + "\n"
        lock.withLock { _ in try? FileHandle.standardOutput.write(contentsOf: Data(line.utf8)) }
    }
}

/// The first reason to stop, awaited by the runtime.
// @unchecked Sendable: `state` is a Mutex; `sources` is appended only by the runtime's task while it installs the handlers, and only kept alive.
final class StopRequests: @unchecked Sendable {
    private let state = Mutex<(reason: String?, waiter: CheckedContinuation<String, Never>?)>((nil, nil))
    private var sources: [DispatchSourceSignal] = []

    func keep(_ source: DispatchSourceSignal) { sources.append(source) }

    func request(_ reason: String) {
        let waiter = state.withLock { s -> CheckedContinuation<String, Never>? in
            guard s.reason == nil else { return nil }
            s.reason = reason
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume(returning: reason)
    }

    func next() async -> String {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { s -> String? in
                if let reason = s.reason { return reason }
                s.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
