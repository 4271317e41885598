import Testing
import TestWait
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization
@testable import RTCNet

/// Many sockets served by a few shared threads (`SharedUDPLoops`, a load generator's transports):
/// each socket's handlers see exactly its own datagrams, on its serving thread, and its replies
/// leave from its own port; timers, handed-over work and watched descriptors run there too.
@Suite struct SharedUDPLoopsTests {
    static let loopback = SocketAddress(ip: "127.0.0.1", port: 0)!

    /// What the handlers of each socket saw (datagram payloads name the socket they were sent to).
    final class Tally: Sendable {
        let own: Mutex<[Int]>
        let foreign = Atomic<Int>(0)
        let offThread = Atomic<Int>(0)
        init(count: Int) { own = Mutex(Array(repeating: 0, count: count)) }
        var counts: [Int] { own.withLock { $0 } }
    }

    private func makeLoops(_ count: Int, on group: SharedUDPLoops, tally: Tally) throws -> [UDPReceiveLoop] {
        try (0..<count).map { index in
            let loop = try UDPReceiveLoop(socket: try UDPSocket(bind: Self.loopback), batchSize: 16, sendQueueCapacity: 32,
                                          sharedBy: group)
            loop.onDatagram = { [unowned loop] bytes, source in
                if !loop.isOnLoopThread { tally.offThread.add(1, ordering: .relaxed) }
                guard bytes.count >= 2, Int(bytes[0]) << 8 | Int(bytes[1]) == index else {
                    tally.foreign.add(1, ordering: .relaxed)
                    return
                }
                tally.own.withLock { $0[index] += 1 }
                // An echo from this socket: the sender checks which port it came from.
                loop.send(UnsafeRawBufferPointer(bytes), to: source)
            }
            loop.start()
            return loop
        }
    }

    @Test func nSocketsOnKThreadsEachReceiveOnlyTheirOwnDatagrams() async throws {
        let group = try SharedUDPLoops(threadCount: 3, name: "srtc-test-sh")
        defer { group.shutdown() }
        let tally = Tally(count: 30)
        let loops = try makeLoops(30, on: group, tally: tally)
        try await eventually("every socket attached") { group.socketsPerThread == [10, 10, 10] }
        // Socket i gets 4 + i % 5 × 3 datagrams, interleaved across sockets.
        let expected = (0..<30).map { 4 + ($0 % 5) * 3 }
        let sender = try UDPSocket(bind: Self.loopback)
        for round in 0..<expected.max()! {
            for (i, loop) in loops.enumerated() where round < expected[i] {
                sender.send([UInt8(i >> 8), UInt8(i & 0xff), UInt8(round)], to: loop.socket.localAddress)
            }
        }
        try await eventually("every datagram counted: \(tally.counts) of \(expected)") { tally.counts == expected }
        #expect(tally.foreign.load(ordering: .relaxed) == 0)
        #expect(tally.offThread.load(ordering: .relaxed) == 0)

        // Every echo came back from the socket it was sent to.
        let echoes = await onThread { () -> [Int: Int] in
            let receiver = UDPBatchReceiver(batchSize: 32, slotSize: 64)
            var byPort: [Int: Int] = [:]
            var total = 0
            for _ in 0..<200 where total < expected.reduce(0, +) {
                UDPTests.waitReadable(sender, milliseconds: 500)
                total += receiver.receive(from: sender) { bytes, source in
                    let index = Int(bytes[0]) << 8 | Int(bytes[1])
                    if loops[index].socket.localAddress.port == source.port { byPort[index, default: 0] += 1 }
                }
            }
            return byPort
        }
        #expect((0..<30).map { echoes[$0] ?? 0 } == expected)

        // Stopped sockets leave their thread; the others keep receiving.
        for loop in loops[0..<15] { loop.stop() }
        #expect(group.socketsPerThread.reduce(0, +) == 15)
        for (i, loop) in loops.enumerated() { sender.send([UInt8(i >> 8), UInt8(i & 0xff), 99], to: loop.socket.localAddress) }
        let after = expected.enumerated().map { $0.offset < 15 ? $0.element : $0.element + 1 }
        try await eventually("the live sockets counted one more: \(tally.counts)") { tally.counts == after }
        for loop in loops[15...] { loop.stop() }
        #expect(group.socketsPerThread == [0, 0, 0])
    }

    @Test func ticksHandedOverWorkAndWatchedDescriptorsRunOnTheServingThread() async throws {
        let group = try SharedUDPLoops(threadCount: 2, tickInterval: .milliseconds(5), name: "srtc-test-sh")
        defer { group.shutdown() }
        let loop = try UDPReceiveLoop(socket: try UDPSocket(bind: Self.loopback), tickInterval: .milliseconds(20), sharedBy: group)
        let ticks = Atomic<Int>(0), offThread = Atomic<Int>(0)
        loop.onTick = { [unowned loop] _ in
            if !loop.isOnLoopThread { offThread.add(1, ordering: .relaxed) }
            ticks.add(1, ordering: .relaxed)
        }
        loop.start(name: "ignored")
        defer { loop.stop() }
        try await eventually("ticks") { ticks.load(ordering: .relaxed) >= 3 }

        let ran = Atomic<Bool>(false)
        loop.execute { [loop] in ran.store(loop.isOnLoopThread, ordering: .relaxed) }
        try await eventually("handed-over work ran on the serving thread") { ran.load(ordering: .relaxed) }

        // A pipe watched through the loop (as an ICE-TCP stream is) reports readable there.
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        let readable = Atomic<Int>(0)
        let readFD = fds[0]
        loop.execute { [loop] in
            loop.watch(readFD, read: true, write: false) { readiness in
                guard readiness.readable else { return }
                var byte: UInt8 = 0
                _ = read(readFD, &byte, 1)
                if loop.isOnLoopThread { readable.add(1, ordering: .relaxed) }
            }
        }
        var byte: UInt8 = 7
        _ = write(fds[1], &byte, 1)
        try await eventually("the watched pipe was read") { readable.load(ordering: .relaxed) == 1 }
        loop.execute { [loop] in loop.unwatch(readFD) }
        #expect(offThread.load(ordering: .relaxed) == 0)
    }
}
