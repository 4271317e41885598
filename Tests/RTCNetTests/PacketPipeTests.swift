import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Testing
import TestWait
@testable import RTCNet

/// The single-producer, single-consumer packet ring between two workers' threads
/// (docs/architecture.md, "A channel larger than a worker").
@Suite struct PacketPipeTests {
    /// Whether the pipe's wake-up descriptor is readable now.
    static func signalled(_ pipe: PacketPipe) -> Bool {
        var fds = [pollfd(fd: pipe.readFD, events: Int16(POLLIN), revents: 0)]
        return poll(&fds, 1, 0) == 1
    }

    /// `push(tag:copying:)` with `bytes`.
    @discardableResult
    static func push(_ pipe: PacketPipe, tag: UInt8 = 0, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { pipe.push(tag: tag, copying: $0) }
    }

    @Test func packetsComeOutInOrderWithTheirTagsAndBytesAndAFullRingDropsAndCounts() throws {
        let pipe = try PacketPipe(capacity: 4, slotSize: 8)
        #expect(pipe.capacity == 4 && !Self.signalled(pipe))
        for i in 0 ..< 4 { #expect(Self.push(pipe, tag: UInt8(i % 2), [UInt8(10 + i), 0xEE])) }
        #expect(Self.signalled(pipe))
        // Full: the fifth is refused and counted; too large or abandoned ones are refused, not counted.
        #expect(!Self.push(pipe, [1]))
        #expect(pipe.droppedCount == 1)
        var out: [(UInt8, [UInt8])] = []
        #expect(pipe.drain { tag, bytes in out.append((tag, Array(bytes))) } == 4)
        #expect(out.map(\.0) == [0, 1, 0, 1])
        #expect(out.map(\.1) == [[10, 0xEE], [11, 0xEE], [12, 0xEE], [13, 0xEE]])
        #expect(!Self.signalled(pipe))
        #expect(!Self.push(pipe, [UInt8](repeating: 0, count: 9)))
        #expect(!pipe.push(tag: 0) { _ in nil })
        #expect(pipe.droppedCount == 1 && pipe.count == 0)
        // Room again after the drain, and the slots are reused in place.
        #expect(pipe.push(tag: 7) { slot in slot[0] = 42; return 1 })
        out = []
        pipe.drain { tag, bytes in out.append((tag, Array(bytes))) }
        #expect(out.count == 1 && out[0].0 == 7 && out[0].1 == [42])
    }

    @Test func aBurstWakesTheConsumerOnceUntilItDrains() throws {
        let pipe = try PacketPipe(capacity: 64)
        for i in 0 ..< 10 { Self.push(pipe, [UInt8(i)]) }
        #expect(Self.signalled(pipe))
        #expect(pipe.drain { _, _ in } == 10)
        // Drained, the descriptor is quiet; the next packet signals again.
        #expect(!Self.signalled(pipe))
        Self.push(pipe, [1])
        #expect(Self.signalled(pipe))
    }

    /// One thread pushes numbered packets as fast as it can (waiting when the ring is full), another
    /// sleeps in `poll` on the wake-up and drains: every packet arrives once, in order.
    @Test func betweenTwoThreadsEveryPacketArrivesOnceInOrder() async throws {
        let pipe = try PacketPipe(capacity: 256, slotSize: 16)
        let total = 200_000
        let received = await onThread {
            let producer = Thread {
                var n = 0
                while n < total {
                    let pushed = pipe.push(tag: 0) { slot in
                        withUnsafeBytes(of: UInt32(n).littleEndian) { slot.copyMemory(from: $0) }
                        return 4
                    }
                    if pushed { n += 1 } else { sched_yield() }
                }
            }
            producer.start()
            var next = 0, outOfOrder = 0, idlePolls = 0
            // Only a hang ends it early: a minute of polls with nothing new.
            while next < total, idlePolls < 60 {
                var fds = [pollfd(fd: pipe.readFD, events: Int16(POLLIN), revents: 0)]
                _ = poll(&fds, 1, 1000)
                let drained = pipe.drain { _, bytes in
                    let value = Int(bytes.loadUnaligned(as: UInt32.self).littleEndian)
                    if value != next { outOfOrder += 1 }
                    next = value + 1
                }
                idlePolls = drained == 0 ? idlePolls + 1 : 0
            }
            return (next, outOfOrder)
        }
        print("pipe: \(received.0) packets, \(pipe.droppedCount) refusals while full (retried)")
        #expect(received.0 == total && received.1 == 0)
    }
}
