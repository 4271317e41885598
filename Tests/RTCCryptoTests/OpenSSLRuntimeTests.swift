import Foundation
import Processes
import RTCCrypto
import SRTCTestSupport
import Synchronization
import Testing

/// A process that exits while other threads are inside OpenSSL exits cleanly. Before OpenSSL was
/// initialised without its atexit cleanup, `exit()` freed OpenSSL's locks under those threads and
/// test processes crashed after their last test ("Bad pointer dereference at 0x18" in
/// `pthread_rwlock_wrlock`, reached from `CRYPTO_THREAD_write_lock`).
@Suite struct OpenSSLRuntimeTests {
    /// Set in the child processes this test starts: the test then plays the child's part.
    static let childVariable = "SRTC_TEST_OPENSSL_EXIT_CHILD"

    @Test func exitWhileThreadsUseOpenSSLLeavesNoCrash() async throws {
        if ProcessInfo.processInfo.environment[Self.childVariable] != nil { Self.exitWhileBusy() }
        #expect(OpenSSLRuntime.survivesExitWithThreadsInside)
        // Without the fix a run crashed about one time in five; ten runs all exiting cleanly
        // would then happen about once in ten test runs. Spawned and reaped with posix_spawn and
        // waitpid (`ChildProcess`): Foundation's `Process` once missed a child's exit here and
        // `waitUntilExit` waited on the zombie forever, holding the whole test run.
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        let environment = ProcessInfo.processInfo.environment.merging([Self.childVariable: "1"]) { $1 }
        for run in 0..<10 {
            let child = try ChildProcess(executable, ["--testing-library", "swift-testing", "--filter", "exitWhileThreadsUseOpenSSLLeavesNoCrash"],
                                         environment: environment)
            let status = await child.waitForExit(timeout: 60)
            if status == -1 { await child.stop() }
            #expect(status == 0, "run \(run): the child ended with \(status) (128 + n: signal n; -1: still running after 60 s)")
        }
    }

    /// The child: four threads take OpenSSL's locks in a loop (random bytes, HMAC), and once each
    /// has gone round many times the process exits under them.
    static func exitWhileBusy() -> Never {
        let rounds = Atomic<Int>(0)
        for _ in 0..<4 {
            Thread.detachNewThread {
                let key = SecureRandom.bytes(32)
                while true {
                    _ = Digest.hmacSHA256(key: key, message: SecureRandom.bytes(16))
                    rounds.add(1, ordering: .relaxed)
                }
            }
        }
        while rounds.load(ordering: .relaxed) < 4 * 2000 { usleep(1000) }
        exit(0)
    }
}
