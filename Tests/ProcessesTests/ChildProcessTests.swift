#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Processes
import Testing

/// The one spawner: what a program gets (arguments, environment, directory, input) and what comes
/// back (its output, where it was sent, and its exit status), with real programs.
struct ChildProcessTests {
    @Test func runReturnsTheStatusAndWhatTheProgramPrintedOnBothStreams() throws {
        let (status, output) = try ChildProcess.run(["/bin/sh", "-c", "echo out; echo err >&2; exit 3"])
        #expect(status == 3)
        #expect(output.split(separator: "\n").sorted() == ["err", "out"])
    }

    @Test func runFeedsItsInputAndNothingElseIsInherited() throws {
        // A pipe open here, not close-on-exec: the child must not inherit it.
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        let (status, output) = try ChildProcess.run(["/bin/sh", "-c", "cat; ls /proc/self/fd | wc -l"], input: "line one\nline two\n")
        #expect(status == 0)
        // cat's copy, then ls's own descriptors: 0, 1, 2 and the one it reads the directory with.
        #expect(output == "line one\nline two\n4\n", "\(output)")
    }

    @Test func theEnvironmentAndTheDirectoryAreTheOnesGiven() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("srtc-child-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let child = try ChildProcess("/bin/sh", ["-c", "echo \"$ONLY_THIS:$HOME:$(pwd)\""], environment: ["ONLY_THIS": "yes"],
                                     pipeOutput: true, directory: directory)
        let printed = String(decoding: child.output!.readDataToEndOfFile(), as: UTF8.self)
        #expect(child.waitUntilExit() == 0)
        #expect(printed == "yes::\(directory)\n")
    }

    @Test func aKilledProgramReports128PlusTheSignalAndStopEndsAProgramThatIgnoresSIGTERM() async throws {
        let sleeper = try ChildProcess("/bin/sleep", ["30"])
        #expect(sleeper.isRunning)
        sleeper.signal(SIGKILL)
        #expect(sleeper.waitUntilExit() == 128 + SIGKILL)
        #expect(!sleeper.isRunning)

        let stubborn = try ChildProcess("/bin/sh", ["-c", "trap '' TERM; echo ready; while :; do sleep 0.1; done"], pipeOutput: true)
        var ready = ""
        while !ready.hasSuffix("\n") { ready += String(decoding: stubborn.output!.availableData, as: UTF8.self) }
        await stubborn.stop(timeout: 0.5)
        #expect(!stubborn.isRunning)
        #expect(await stubborn.waitForExit() == 128 + SIGKILL)
    }

    @Test func waitingOnAThreadAndPollingAgreeOnOneStatus() async throws {
        let child = try ChildProcess("/bin/sh", ["-c", "sleep 0.2; exit 7"])
        let waited = Task.detached { child.waitUntilExit() }
        #expect(await child.waitForExit(timeout: 30) == 7)
        #expect(await waited.value == 7)
    }

    @Test func aProgramThatCannotBeFoundIsANamedFailure() {
        #expect(throws: ChildProcess.Failure.self) { try ChildProcess("/nonexistent/program", []) }
    }
}
