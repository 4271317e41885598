// The kernel's share of forwarding: what a bare `sendmmsg` loop costs to send the same datagrams
// to the same receiving sockets at the same pace as a server did. On loopback the sender also
// pays for the receiving side's network stack, so this is the floor no forwarding server can go
// below with one send per packet.
import Foundation
import RTCNet
import Synchronization

enum KernelFloor {
    /// One destination: its address, datagrams per second and datagram size.
    struct Target {
        var address: SocketAddress
        var packetsPerSecond: Double
        var size: Int
    }

    /// Thread CPU µs per datagram of a plain UDP socket sending to `targets` for `seconds`: every
    /// millisecond the datagrams then due go out in one `sendmmsg` batch (at the fan-out of a
    /// forwarding server, a source packet's copies share a batch). Only the time inside the
    /// sends counts, not the pacing loop. The payload looks like SRTP (an RTP first byte) so
    /// receivers spend their own time rejecting it, not this thread's.
    static func measure(_ targets: [Target], seconds: Double) -> Double {
        guard !targets.isEmpty, let socket = try? UDPSocket(bind: SocketAddress(ip: "127.0.0.1", port: 0)!) else { return 0 }
        defer { socket.close() }
        let largest = targets.map(\.size).max() ?? 0
        let datagram = [UInt8](repeating: 0x5A, count: largest).enumerated().map { $0.offset == 0 ? 0x80 : $0.offset == 1 ? 96 : $0.element }
        let result = Mutex<Double>(0)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            let queue = UDPSendQueue(capacity: 64)
            var sent = [Int](repeating: 0, count: targets.count)
            var cpu = 0.0
            func flush() {
                let before = CPUTime.thread()
                queue.flush(on: socket)
                cpu += CPUTime.thread() - before
            }
            let start = Date()
            while Date().timeIntervalSince(start) < seconds {
                let elapsed = Date().timeIntervalSince(start)
                for (index, target) in targets.enumerated() {
                    let due = Int(elapsed * target.packetsPerSecond) - sent[index]
                    for _ in 0 ..< max(0, due) {
                        if queue.isFull { flush() }
                        datagram.withUnsafeBytes { _ = queue.enqueue(UnsafeRawBufferPointer(rebasing: $0[0 ..< target.size]), to: target.address) }
                    }
                    sent[index] += max(0, due)
                }
                flush()
                Thread.sleep(forTimeInterval: 0.001)
            }
            result.withLock { $0 = cpu / Double(max(1, sent.reduce(0, +))) }
            done.signal()
        }
        thread.start()
        done.wait()
        return result.withLock { $0 }
    }
}
