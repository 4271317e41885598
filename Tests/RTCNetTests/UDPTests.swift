import Testing
import TestWait
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization
@testable import RTCNet

@Suite struct UDPTests {
    static let loopback = SocketAddress(ip: "127.0.0.1", port: 0)!

    @Test func bindingToPortZeroReportsTheChosenPort() throws {
        let socket = try UDPSocket(bind: Self.loopback)
        #expect(socket.localAddress.port != 0)
        #expect(socket.localAddress.ipString == "127.0.0.1")
    }

    @Test func ipv6LoopbackBindsWhenAvailable() throws {
        guard let socket = try? UDPSocket(bind: SocketAddress(ip: "::1", port: 0)!) else { return } // no IPv6 here
        #expect(socket.localAddress.family == .ipv6)
        #expect(socket.localAddress.port != 0)
    }

    /// Waits (briefly blocking this thread) until `socket` has a datagram; the data is already
    /// in flight on loopback, so this returns at once in practice.
    static func waitReadable(_ socket: UDPSocket, milliseconds: Int32 = 5000) {
        var fds = [pollfd(fd: socket.descriptor, events: Int16(POLLIN), revents: 0)]
        _ = poll(&fds, 1, milliseconds)
    }

    @Test func batchReceiverReadsEveryQueuedDatagramWithItsSender() throws {
        let a = try UDPSocket(bind: Self.loopback)
        let b = try UDPSocket(bind: Self.loopback)
        let queue = UDPSendQueue(capacity: 8, slotSize: 256)
        for i in 0..<5 {
            let payload: [UInt8] = [UInt8(i), 0xAA, UInt8(i * 2)]
            payload.withUnsafeBytes { _ = queue.enqueue($0, to: b.localAddress) }
        }
        #expect(queue.count == 5)
        queue.flush(on: a)
        #expect(queue.count == 0)
        #expect(queue.droppedCount == 0)

        let receiver = UDPBatchReceiver(batchSize: 4, slotSize: 256)
        var received: [[UInt8]] = []
        var senders: [SocketAddress] = []
        for _ in 0..<10 where received.count < 5 {
            Self.waitReadable(b)
            receiver.receive(from: b) { bytes, from in
                received.append(Array(bytes)); senders.append(from)
            }
        }
        #expect(received == (0..<5).map { [UInt8($0), 0xAA, UInt8($0 * 2)] })
        #expect(senders.allSatisfy { $0 == a.localAddress })
    }

    @Test func stampedDatagramsAreTimedWhenTheKernelTakesThem() throws {
        let a = try UDPSocket(bind: Self.loopback)
        let b = try UDPSocket(bind: Self.loopback)
        let queue = UDPSendQueue(capacity: 8, slotSize: 64)
        // Stamped 50 ms ago: each is timed at least that long, however fast the send.
        let stamp = Monotonic.microseconds() - 50_000
        for i in 0 ..< 6 {
            queue.enqueue(to: b.localAddress, stamp: i % 2 == 0 ? stamp : 0) { slot in slot[0] = UInt8(i); return 1 }
        }
        #expect(queue.sendLatency.count == 0)   // queued is not sent
        queue.flush(on: a)
        #expect(queue.sendLatency.count == 3)   // the unstamped three are not timed
        #expect(queue.sendLatency.percentile(0) >= 50_000)  // a bucket's upper edge, never below a sample
        queue.enqueue(to: b.localAddress) { _ in 1 }
        queue.flush(on: a)
        #expect(queue.sendLatency.count == 3)
    }

    @Test func enqueueWithWriterUsesTheReturnedLength() throws {
        let queue = UDPSendQueue(capacity: 2, slotSize: 64)
        let target = SocketAddress(ip: "127.0.0.1", port: 9)!
        #expect(queue.enqueue(to: target) { slot in slot[0] = 1; return 1 })
        #expect(!queue.enqueue(to: target) { _ in nil }) // abandoned slot is not queued
        #expect(queue.count == 1)
        #expect(queue.enqueue(to: target) { _ in 10 })
        #expect(queue.isFull)
        #expect(!queue.enqueue(to: target) { _ in 10 })
        #expect(queue.droppedCount == 1)
    }

    @Test func receiveLoopDeliversOnItsThreadAndRunsExecuteAndTicks() async throws {
        let server = try UDPSocket(bind: Self.loopback)
        let client = try UDPSocket(bind: Self.loopback)
        let loop = try UDPReceiveLoop(socket: server, tickInterval: .milliseconds(5))
        let state = Mutex<(datagrams: [[UInt8]], onLoop: Bool, ticks: Int, executed: Bool)>(([], true, 0, false))
        loop.onDatagram = { bytes, from in
            let onLoop = loop.isOnLoopThread
            state.withLock { $0.datagrams.append(Array(bytes)); $0.onLoop = $0.onLoop && onLoop }
            // Echo back through the batched queue.
            loop.send(UnsafeRawBufferPointer(bytes), to: from)
        }
        loop.onTick = { _ in state.withLock { $0.ticks += 1 } }
        loop.start()
        defer { loop.stop() }
        loop.execute { state.withLock { $0.executed = true } }
        client.send([1, 2, 3], to: server.localAddress)
        client.send([4, 5], to: server.localAddress)

        // The blocking reads of the echo run on a thread of their own, off the cooperative pool.
        let echoed = await onThread { () -> [[UInt8]] in
            let receiver = UDPBatchReceiver(batchSize: 4, slotSize: 64)
            var echoed: [[UInt8]] = []
            for _ in 0..<10 where echoed.count < 2 {
                Self.waitReadable(client)
                receiver.receive(from: client) { bytes, _ in echoed.append(Array(bytes)) }
            }
            return echoed
        }
        // Ticks come every 5 ms on the loop thread; wait until two have been seen.
        try await eventually("two ticks and the executed block") { state.withLock { $0.ticks >= 2 && $0.executed } }
        #expect(echoed == [[1, 2, 3], [4, 5]])
        let snapshot = state.withLock { $0 }
        #expect(snapshot.datagrams == [[1, 2, 3], [4, 5]])
        #expect(snapshot.onLoop)
        #expect(snapshot.executed)
        #expect(snapshot.ticks > 1)
        #expect(!loop.isOnLoopThread)
    }

    /// A burst longer than the send queue inside one round of `execute` work goes out whole: the
    /// loop sends what waits when the queue is full. (It dropped everything past the queue's
    /// capacity, so fifty lossy data-channel messages sent at once lost a third on loopback.)
    @Test func aBurstLongerThanTheSendQueueIsSentWhole() async throws {
        let server = try UDPSocket(bind: Self.loopback)
        let client = try UDPSocket(bind: Self.loopback)
        let loop = try UDPReceiveLoop(socket: server, sendQueueCapacity: 4)
        loop.start()
        defer { loop.stop() }
        let target = client.localAddress
        loop.execute {
            for i in 0..<20 { [UInt8(i)].withUnsafeBytes { _ = loop.send($0, to: target) } }
            for i in 20..<40 { loop.send(to: target) { slot in slot[0] = UInt8(i); return 1 } }
        }
        let received = await onThread { () -> [UInt8] in
            let receiver = UDPBatchReceiver(batchSize: 16, slotSize: 64)
            var received: [UInt8] = []
            // Until all 40 are in, or nothing more comes for a second.
            while received.count < 40 {
                Self.waitReadable(client, milliseconds: 1000)
                if receiver.receive(from: client, { bytes, _ in received.append(contentsOf: bytes) }) == 0 { break }
            }
            return received
        }
        #expect(received == (0..<40).map(UInt8.init))
        let dropped = await withCheckedContinuation { c in loop.execute { c.resume(returning: loop.sendQueue.droppedCount) } }
        #expect(dropped == 0)
    }
}
