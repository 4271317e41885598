// The one way a UDP I/O loop starts its thread (`UDPReceiveLoop`, `SharedUDPThread`).
#if canImport(Glibc)
import CSystem
#endif
import Foundation

enum IOThread {
    /// Starts `body` on a new thread named `name` with a 1 MiB stack, at `priority` or the best
    /// below it the kernel allows; `body` gets the priority applied.
    static func start(name: String, priority: IOThreadPriority, body: @escaping @Sendable (IOThreadPriority) -> Void) {
        let thread = Thread {
            #if os(Linux)
            // Foundation's `Thread.name` does not reach the kernel's thread name on Linux.
            _ = srtc_set_thread_name(name)
            #endif
            body(priority.applyToCurrentThread())
        }
        thread.name = name
        thread.stackSize = 1 << 20
        thread.start()
    }
}
