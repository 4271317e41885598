import EgressProtocol
import Foundation
import Synchronization

/// One `srtc-egress` process: its task goes in as the first line of standard input, commands as
/// further lines, and its events come back as lines on standard output, read on a thread of
/// their own. A line that does not decode is logged and skipped. When the output closes (the
/// worker exited or died), `onExit` gets the exit status, or 128 + the signal that killed it.
final class WorkerProcess: @unchecked Sendable {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let onEvent: @Sendable (WorkerEvent) -> Void
    private let onExit: @Sendable (Int32) -> Void
    private let writeLock = Mutex(())

    /// - Parameters:
    ///   - onEvent: called on the reading thread for every event, in order.
    ///   - onExit: called once on the reading thread after the last event.
    init(executable: String, onEvent: @escaping @Sendable (WorkerEvent) -> Void, onExit: @escaping @Sendable (Int32) -> Void) {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = []
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        self.onEvent = onEvent
        self.onExit = onExit
    }

    /// Starts the process with `task`.
    func start(_ task: WorkerTask) throws(EgressError) {
        do {
            try process.run()
        } catch {
            throw EgressError(.internalError, "cannot start the egress worker \(process.executableURL?.path ?? "?"): \(error)")
        }
        // The parent's copies of the child's ends are not needed (the reader sees EOF when the child exits).
        try? output.fileHandleForWriting.close()
        try? input.fileHandleForReading.close()
        let thread = Thread { [self] in readEvents() }
        thread.name = "srtc-egress-worker-\(process.processIdentifier)"
        thread.start()
        send(line: WorkerCodec.line(task))
    }

    /// The process id (0 before start).
    var pid: Int32 { process.processIdentifier }

    /// Sends a command; nothing happens when the worker has gone.
    func send(_ command: WorkerCommand) {
        send(line: WorkerCodec.line(command))
    }

    /// Closes the worker's standard input (it stops as if told `stop`).
    func closeInput() {
        writeLock.withLock { _ in try? input.fileHandleForWriting.close() }
    }

    /// Ends the process at once (SIGKILL).
    func kill() {
        let pid = process.processIdentifier
        if pid > 0, process.isRunning { Foundation.kill(pid, SIGKILL) }
    }

    private func send(line: String) {
        // Writing to a worker that died fails with EPIPE (SIGPIPE is ignored by the supervisor).
        writeLock.withLock { _ in try? input.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8)) }
    }

    private func readEvents() {
        let handle = output.fileHandleForReading
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
        process.waitUntilExit()
        let status = process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
        writeLock.withLock { _ in try? input.fileHandleForWriting.close() }
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
