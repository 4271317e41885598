#if canImport(Glibc)
import Glibc
#endif
import EgressProtocol
import Foundation
import Processes
import Synchronization

/// One `srtc-egress` process: its task goes in as the first line of standard input, commands as
/// further lines, and its events come back as lines on standard output, read on a thread of
/// their own. A line that does not decode is logged and skipped. When the output closes (the
/// worker exited or died), `onExit` gets the exit status, or 128 + the signal that killed it.
final class WorkerProcess: Sendable {
    private let executable: String
    /// The running worker, once started.
    private let child = Mutex<ChildProcess?>(nil)
    private let onEvent: @Sendable (WorkerEvent) -> Void
    private let onExit: @Sendable (Int32) -> Void
    private let writeLock = Mutex(())

    /// - Parameters:
    ///   - onEvent: called on the reading thread for every event, in order.
    ///   - onExit: called once on the reading thread after the last event.
    init(executable: String, onEvent: @escaping @Sendable (WorkerEvent) -> Void, onExit: @escaping @Sendable (Int32) -> Void) {
        self.executable = executable
        self.onEvent = onEvent
        self.onExit = onExit
    }

    /// Starts the process with `task`; its standard error is the server's.
    func start(_ task: WorkerTask) throws(EgressError) {
        let started: ChildProcess
        do {
            started = try ChildProcess(executable, [], pipeInput: true, pipeOutput: true, standardError: .inherit)
        } catch {
            throw EgressError(.internalError, "cannot start the egress worker \(executable): \(error)")
        }
        child.withLock { $0 = started }
        let thread = Thread { [self] in readEvents(of: started) }
        thread.name = "srtc-egress-worker-\(started.pid)"
        thread.start()
        send(line: WorkerCodec.line(task))
    }

    /// The process id (0 before start).
    var pid: Int32 { child.withLock { $0?.pid ?? 0 } }

    /// Sends a command; nothing happens when the worker has gone.
    func send(_ command: WorkerCommand) {
        send(line: WorkerCodec.line(command))
    }

    /// Closes the worker's standard input (it stops as if told `stop`).
    func closeInput() {
        writeLock.withLock { _ in try? child.withLock { $0 }?.input?.close() }
    }

    /// Ends the process at once (SIGKILL).
    func kill() {
        child.withLock { $0 }?.signal(SIGKILL)
    }

    private func send(line: String) {
        // Writing to a worker that died fails with EPIPE (SIGPIPE is ignored by the supervisor).
        writeLock.withLock { _ in try? child.withLock { $0 }?.input?.write(contentsOf: Data((line + "\n").utf8)) }
    }

    private func readEvents(of process: ChildProcess) {
        guard let handle = process.output else { return }
        var buffer: [UInt8] = []
        while true {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            buffer += chunk
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                deliver(line)
            }
            if buffer.count > WorkerCodec.maxLineBytes { buffer.removeAll() }
        }
        let status = process.waitUntilExit()
        closeInput()
        onExit(status)
    }

    private func deliver(_ line: String) {
        guard !line.isEmpty else { return }
        do throws(WorkerCodec.DecodeError) {
            onEvent(try WorkerCodec.event(from: line))
        } catch {
            FileHandle.standardError.write(Data("srtc-server: egress worker \(pid) wrote a bad line (\(error))\n".utf8))
        }
    }
}
