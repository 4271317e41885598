import Testing
import TestWait
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization
@testable import RTCNet

/// When the loop sends what its handlers queue, and how its thread is named and scheduled.
@Suite struct UDPReceiveLoopTests {
    static let loopback = SocketAddress(ip: "127.0.0.1", port: 0)!

    /// Three datagrams wait before the loop starts, so its first `recvmmsg` reads them in one
    /// batch; each is fanned out to `copies` datagrams toward a sink. Returns the queue's length
    /// as each handler began, and how many datagrams the sink received.
    private func fanOut(copies: Int, flushThreshold: Int) async throws -> (queuedAtEntry: [Int], delivered: Int) {
        let server = try UDPSocket(bind: Self.loopback)
        let client = try UDPSocket(bind: Self.loopback)
        let sink = try UDPSocket(bind: Self.loopback)
        for i in 0..<3 { client.send([UInt8(i)], to: server.localAddress) }
        let loop = try UDPReceiveLoop(socket: server, sendQueueCapacity: 32, flushThreshold: flushThreshold)
        let queued = Mutex<[Int]>([])
        loop.onDatagram = { bytes, _ in
            queued.withLock { $0.append(loop.sendQueue.count) }
            for _ in 0..<copies { loop.sendQueue.enqueue(UnsafeRawBufferPointer(bytes), to: sink.localAddress) }
        }
        loop.start()
        defer { loop.stop() }
        let expected = 3 * copies
        let delivered = await onThread { () -> Int in
            let receiver = UDPBatchReceiver(batchSize: 32, slotSize: 64)
            var count = 0
            for _ in 0..<20 where count < expected {
                UDPTests.waitReadable(sink, milliseconds: 500)
                count += receiver.receive(from: sink) { _, _ in }
            }
            return count
        }
        return (queued.withLock { $0 }, delivered)
    }

    @Test func aDatagramsCopiesGoOutBeforeTheRestOfItsBatchOnceTheyFillASystemCall() async throws {
        // 5 copies reach the threshold of 4: each datagram's copies are sent before the next is handled.
        let result = try await fanOut(copies: 5, flushThreshold: 4)
        #expect(result.queuedAtEntry == [0, 0, 0])
        #expect(result.delivered == 15)
    }

    @Test func fewerCopiesWaitForTheBatchsEndToShareOneSystemCall() async throws {
        // 2 copies stay queued until a third datagram's copies make 4 (then one send), or the batch ends.
        let result = try await fanOut(copies: 2, flushThreshold: 4)
        #expect(result.queuedAtEntry == [0, 2, 0])
        #expect(result.delivered == 6)
    }

    /// What the loop thread reads about itself: its name, nice value and policy.
    private func schedulingOfLoop(priority: IOThreadPriority) async throws -> (applied: IOThreadPriority?, name: String, nice: Int32, fifo: Bool) {
        let loop = try UDPReceiveLoop(socket: try UDPSocket(bind: Self.loopback))
        loop.start(name: "srtc-test-loop", priority: priority)
        defer { loop.stop() }
        let seen = Mutex<(name: String, nice: Int32, fifo: Bool)?>(nil)
        loop.execute {
            let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
            errno = 0
            let nice = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
            seen.withLock { $0 = (name.trimmingCharacters(in: .whitespacesAndNewlines), nice, sched_getscheduler(0) == SCHED_FIFO) }
        }
        try await eventually("the loop reported its scheduling") { seen.withLock { $0 != nil } }
        let s = seen.withLock { $0! }
        return (loop.appliedPriority, s.name, s.nice, s.fifo)
    }

    @Test(arguments: IOThreadPriority.allCases)
    func theThreadIsNamedAndRunsAtThePriorityItReports(priority: IOThreadPriority) async throws {
        let result = try await schedulingOfLoop(priority: priority)
        #expect(result.name == "srtc-test-loop")
        let applied = try #require(result.applied)
        #expect(applied <= priority)
        // CI runs as root (CAP_SYS_NICE): every level is granted there.
        if geteuid() == 0 { #expect(applied == priority) }
        #expect(result.fifo == (applied == .realtime))
        if applied == .high { #expect(result.nice == IOThreadPriority.highNice) }
    }
}
