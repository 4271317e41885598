import Foundation
import RTCCrypto
import Synchronization
import Testing

/// A process that exits while other threads are inside OpenSSL exits cleanly. Before OpenSSL was
/// initialised without its atexit cleanup, `exit()` freed OpenSSL's locks under those threads and
/// test processes crashed after their last test ("Bad pointer dereference at 0x18" in
/// `pthread_rwlock_wrlock`, reached from `CRYPTO_THREAD_write_lock`).
@Suite struct OpenSSLRuntimeTests {
    /// Set in the child processes this test starts: the test then plays the child's part.
    static let childVariable = "SRTC_TEST_OPENSSL_EXIT_CHILD"

    @Test func exitWhileThreadsUseOpenSSLLeavesNoCrash() throws {
        if ProcessInfo.processInfo.environment[Self.childVariable] != nil { Self.exitWhileBusy() }
        #expect(OpenSSLRuntime.survivesExitWithThreadsInside)
        // Without the fix a run crashed about one time in five; ten runs all exiting cleanly
        // would then happen about once in ten test runs.
        for run in 0..<10 {
            let child = Process()
            child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            child.arguments = ["--testing-library", "swift-testing", "--filter", "exitWhileThreadsUseOpenSSLLeavesNoCrash"]
            child.environment = ProcessInfo.processInfo.environment.merging([Self.childVariable: "1"]) { $1 }
            child.standardOutput = FileHandle.nullDevice
            child.standardError = FileHandle.nullDevice
            try child.run()
            child.waitUntilExit()
            #expect(child.terminationReason == .exit && child.terminationStatus == 0,
                    "run \(run): the child ended with \(child.terminationReason == .exit ? "status" : "signal") \(child.terminationStatus)")
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
