// SFU benchmark: one publisher → N subscribers (N = 1, 8, 50) through an `SFUWorker` over loopback
// with real ICE, DTLS and SRTP (client `PeerTransport`s on their own threads). The publisher sends
// VP8-sized RTP packets at a fixed rate; the figures are the SFU I/O thread's CPU time per
// forwarded packet (CLOCK_THREAD_CPUTIME_ID read on that thread, so the clients' own work is not
// counted; the whole process is printed beside it), forwarded packets per second, percentiles of
// the SFU's forwarding latency (a packet's arrival in the SFU to the kernel taking each copy), and how many forwarded packets the subscribers received.
// Figures are printed, never asserted.
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import RTCNet
import RTCTransport
import RTCWire
import SFU
import Synchronization

/// Runs the SFU cases and prints one line per subscriber count.
func runSFUBenchmarks() {
    let rate = 1000
    print("SFU forwarding (1 publisher → N subscribers; \(SFUBench.payloadSize) B VP8 payloads at \(rate) pkt/s; "
          + "loopback, SRTP AES-128-GCM with \(SRTPLibrary.crypto.rawValue) crypto; \(SFUBench.measureSeconds) s measured)")
    // SRTC_SFU_BENCH_N="1,8" picks other subscriber counts (e.g. to profile one case).
    let counts = ProcessInfo.processInfo.environment["SRTC_SFU_BENCH_N"]?.split(separator: ",").compactMap { Int($0) } ?? [1, 8, 50]
    for subscribers in counts {
        do {
            let result = try SFUBench.run(subscribers: subscribers, packetsPerSecond: rate)
            print(result.line)
        } catch {
            print("  N=\(subscribers): failed: \(error)")
        }
    }
}

enum SFUBench {
    static let payloadSize = 1100
    static let warmUpSeconds = 1.0
    static let measureSeconds = 4.0
    /// A forwarded packet on the wire: RTP header 12, extension block 16 (mid, abs-send-time,
    /// transport-wide seq), payload, GCM tag 16.
    static let forwardedDatagramSize = 12 + 16 + payloadSize + 16

    struct Result {
        var subscribers: Int
        var forwarded: Int
        var seconds: Double
        var ioThreadMicros: Double
        var processMicros: Double
        var latency: ForwardingLatency?
        var delivered: Int
        /// I/O thread CPU per second with no media flowing (timers, consent checks), µs.
        var idlePerSecond: Double
        /// Thread CPU per datagram of a bare `sendmmsg` loop sending the same datagrams to the
        /// same client sockets at the same pace: the kernel's share (on loopback the sender also
        /// pays for the receiving side's network stack).
        var floorMicros: Double

        var line: String {
            let perPacket = ioThreadMicros / Double(max(1, forwarded))
            let processPer = processMicros / Double(max(1, forwarded))
            let rate = Double(forwarded) / seconds
            let deliveredShare = 100 * Double(delivered) / Double(max(1, forwarded))
            return "  N=\(String(subscribers).padding(toLength: 3, withPad: " ", startingAt: 0))"
                + " forwarded \(fmt(rate, 0)) pkt/s"
                + "  SFU I/O thread \(fmt(perPacket, 2)) µs/pkt"
                + "  (process \(fmt(processPer, 2)) µs/pkt)"
                + "  arrival→kernel p50 \(latency?.p50Micros ?? -1) µs p99 \(latency?.p99Micros ?? -1) µs"
                + "  delivered \(fmt(deliveredShare, 1))%"
                + "\n        floor (bare sendmmsg, same datagrams and pace) \(fmt(floorMicros, 2)) µs/pkt;"
                + " idle I/O thread \(fmt(idlePerSecond / 1000, 1)) ms/s"
        }
    }

    /// Counts what a client receives (on its own I/O thread).
    final class Counter: PeerTransportDelegate, @unchecked Sendable {
        let rtp = Atomic<Int>(0)
        let connected = Atomic<Bool>(false)
        func peerTransport(_ transport: PeerTransport, didChangeState state: PeerTransport.State) {
            if state == .connected { connected.store(true, ordering: .releasing) }
        }
        func peerTransport(_ transport: PeerTransport, didReceiveRTP packet: UnsafeMutableRawBufferPointer) {
            rtp.wrappingAdd(1, ordering: .relaxed)
        }
        func peerTransport(_ transport: PeerTransport, didReceiveRTCP packet: UnsafeMutableRawBufferPointer) {}
    }

    /// - Parameter source: the publisher's packets, in order (`PacketSource` by default).
    static func run(subscribers: Int, packetsPerSecond: Int, source: (() -> [UInt8])? = nil) throws -> Result {
        let worker = try SFUWorker(bind: SocketAddress(ip: "127.0.0.1", port: 0)!)
        defer { worker.stop() }
        let certificate = try DTLSCertificate()
        try blocking { try await worker.createRouter("bench") }

        let (publisher, _) = try connect(worker, "pub", participant: "publisher", certificate: certificate)
        let extensions = [RTPHeaderExtensionParameters(uri: RTPHeaderExtensionURI.mid, id: 4),
                          RTPHeaderExtensionParameters(uri: RTPHeaderExtensionURI.transportWideCC, id: 3)]
        try blocking {
            try await worker.produce("cam", transport: "pub", kind: .video, parameters: RTPParameters(
                mid: "1", codecs: [.vp8(payloadType: 96)], headerExtensions: extensions,
                encodings: [RTPEncodingParameters(ssrc: 0x5EED)]))
        }
        var clients: [(PeerTransport, Counter)] = []
        for index in 0 ..< subscribers {
            let id = TransportID("sub\(index)")
            clients.append(try connect(worker, id, participant: ParticipantID("s\(index)"), certificate: certificate))
            let subscriberSide = RTPParameters(
                mid: "0", codecs: [.vp8(payloadType: 98)],
                headerExtensions: [RTPHeaderExtensionParameters(uri: RTPHeaderExtensionURI.mid, id: 1),
                                   RTPHeaderExtensionParameters(uri: RTPHeaderExtensionURI.absSendTime, id: 2),
                                   RTPHeaderExtensionParameters(uri: RTPHeaderExtensionURI.transportWideCC, id: 5)])
            _ = try blocking {
                try await worker.consume(ConsumerID("c\(index)"), transport: id, producer: "cam", parameters: subscriberSide)
            }
        }
        defer {
            publisher.close()
            for (client, _) in clients { client.close() }
        }

        // The I/O thread's cost with nothing flowing: timers and the clients' consent checks.
        let idleStart = ioThreadCPU(worker)
        Thread.sleep(forTimeInterval: 1)
        let idlePerSecond = ioThreadCPU(worker) - idleStart

        let next = source ?? PacketSource().next
        // Warm up (the first packet is a key frame, which starts every consumer), then measure.
        try pace(publisher, next, packetsPerSecond: packetsPerSecond, seconds: warmUpSeconds)
        Thread.sleep(forTimeInterval: 0.2)
        _ = blocking { await worker.takeForwardingLatency() }
        let sentBefore = try consumerTotal(worker, subscribers)
        let receivedBefore = clients.reduce(0) { $0 + $1.1.rtp.load(ordering: .relaxed) }
        let threadBefore = ioThreadCPU(worker)
        let processBefore = CPUTime.process()
        let start = Date()
        try pace(publisher, next, packetsPerSecond: packetsPerSecond, seconds: measureSeconds)
        Thread.sleep(forTimeInterval: 0.2)
        let elapsed = Date().timeIntervalSince(start) - 0.2
        let threadAfter = ioThreadCPU(worker)
        let processAfter = CPUTime.process()
        let forwarded = try consumerTotal(worker, subscribers) - sentBefore
        let received = clients.reduce(0) { $0 + $1.1.rtp.load(ordering: .relaxed) } - receivedBefore
        let latency = blocking { await worker.takeForwardingLatency() }
        let floor = KernelFloor.measure(clients.map { KernelFloor.Target(address: $0.0.localAddress, packetsPerSecond: Double(packetsPerSecond),
                                                                         size: forwardedDatagramSize) }, seconds: measureSeconds / 2)
        return Result(subscribers: subscribers, forwarded: forwarded, seconds: elapsed,
                      ioThreadMicros: threadAfter - threadBefore, processMicros: processAfter - processBefore,
                      latency: latency, delivered: received, idlePerSecond: idlePerSecond, floorMicros: floor)
    }

    /// Sends `packetsPerSecond` for `seconds`, in 5 ms bursts, from the publisher's I/O thread.
    static func pace(_ publisher: PeerTransport, _ next: () -> [UInt8], packetsPerSecond: Int, seconds: Double) throws {
        let start = Date()
        var sent = 0
        while true {
            let elapsed = Date().timeIntervalSince(start)
            if elapsed >= seconds { break }
            let due = Int(elapsed * Double(packetsPerSecond)) - sent
            if due > 0 {
                let burst = (0 ..< due).map { _ in next() }
                publisher.execute { t in for packet in burst { packet.withUnsafeBytes { _ = t.sendRTP($0) } } }
                sent += due
            }
            Thread.sleep(forTimeInterval: 0.005)
        }
    }

    static func connect(_ worker: SFUWorker, _ id: TransportID, participant: ParticipantID,
                        certificate: DTLSCertificate) throws -> (PeerTransport, Counter) {
        let counter = Counter()
        let clientCertificate = try DTLSCertificate()
        let serverICE = ICECredentials.random(), clientICE = ICECredentials.random()
        try blocking {
            try await worker.createTransport(id, router: "bench", participant: participant, parameters: PeerTransportParameters(
                iceRole: .lite, localICE: serverICE, remoteICE: clientICE, certificate: certificate,
                remoteFingerprint: clientCertificate.fingerprint, dtlsRole: .server, srtpProfiles: [.aeadAES128GCM]))
        }
        let client = try PeerTransport.client(PeerTransportParameters(
            iceRole: .controlling, localICE: clientICE, remoteICE: serverICE,
            remoteCandidates: [ICECandidate(address: worker.port.localAddress)], certificate: clientCertificate,
            remoteFingerprint: certificate.fingerprint, dtlsRole: .client, srtpProfiles: [.aeadAES128GCM]),
            bind: SocketAddress(ip: "127.0.0.1", port: 0)!, delegate: counter)
        // Clients run at nice 10: on a small machine the receivers share the cores with the SFU,
        // and each one waking up would otherwise preempt the SFU's thread in the middle of a
        // batch, which no real deployment (receivers elsewhere) pays for. (On Linux, who = 0 means
        // the calling thread.)
        client.execute { _ in _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10) }
        let deadline = Date().addingTimeInterval(10)
        while !counter.connected.load(ordering: .acquiring) || (try? blocking({ try await worker.stats(of: id) }))?.state != .connected {
            guard Date() < deadline else { throw SFUError.transportCreationFailed("\(id) did not connect") }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return (client, counter)
    }

    static func consumerTotal(_ worker: SFUWorker, _ count: Int) throws -> Int {
        try blocking {
            var total = 0
            for index in 0 ..< count { total += try await worker.stats(of: ConsumerID("c\(index)")).packetsSent }
            return total
        }
    }

    /// CPU time of the worker's I/O thread, µs, read on that thread.
    static func ioThreadCPU(_ worker: SFUWorker) -> Double {
        let value = Mutex<Double>(0)
        let done = DispatchSemaphore(value: 0)
        worker.port.execute {
            value.withLock { $0 = CPUTime.thread() }
            done.signal()
        }
        done.wait()
        return value.withLock { $0 }
    }

}

/// VP8-sized RTP packets of one stream: a key frame first, then delta frames of 5 packets.
final class PacketSource: @unchecked Sendable {
    private var seq: UInt16 = 1
    private var timestamp: UInt32 = 90_000
    private var twcc: UInt16 = 0
    private var index = 0
    private var template: [UInt8]
    private let header: Int

    init() {
        template = RTPPacket(payloadType: 96, sequenceNumber: 0, timestamp: 0, ssrc: 0x5EED,
                             extensions: [RTPHeaderExtensionElement(id: 4, value: Array("1".utf8)),
                                          RTPHeaderExtensionElement(id: 3, value: [0, 0])],
                             payload: [UInt8](repeating: 0x5A, count: SFUBench.payloadSize)).serialize()
        header = template.withUnsafeBytes { try! RTPPacketView($0).headerLength }
    }

    func next() -> [UInt8] {
        var packet = template
        let frameStart = index % 5 == 0
        packet[1] = (index % 5 == 4 ? 0x80 : 0) | 96
        packet[2] = UInt8(seq >> 8); packet[3] = UInt8(seq & 0xFF)
        packet[4] = UInt8(timestamp >> 24); packet[5] = UInt8(timestamp >> 16 & 0xFF)
        packet[6] = UInt8(timestamp >> 8 & 0xFF); packet[7] = UInt8(timestamp & 0xFF)
        // Transport-wide number: the element after mid ("1": id 4, 1 byte).
        packet[19] = UInt8(twcc >> 8); packet[20] = UInt8(twcc & 0xFF)
        // VP8 descriptor (RFC 7741 §4.2): S=1 on a frame's first packet; frame tag P=0 on the first frame.
        packet[header] = frameStart ? 0x10 : 0x00
        packet[header + 1] = index == 0 ? 0x00 : 0x01
        if index == 0 { packet[header + 4] = 0x9D; packet[header + 5] = 0x01; packet[header + 6] = 0x2A }
        seq &+= 1
        twcc &+= 1
        index += 1
        if index % 5 == 0 { timestamp &+= 3000 }
        return packet
    }
}

/// Runs async work to completion from synchronous code.
func blocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let result = Mutex<Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        do { let value = try await body(); result.withLock { $0 = .success(value) } } catch { result.withLock { $0 = .failure(error) } }
        done.signal()
    }
    done.wait()
    return try result.withLock { $0! }.get()
}

func blocking<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
    let result = Mutex<T?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        let value = await body()
        result.withLock { $0 = value }
        done.signal()
    }
    done.wait()
    return result.withLock { $0! }
}

private func fmt(_ value: Double, _ decimals: Int) -> String {
    String(format: "%.\(decimals)f", value)
}
