import Foundation
import RTCNet
import RTCTransport
import RTCWire
import SRTC
import SRTCProtocol
import Synchronization

/// A load participant's subscribe transport: answers the server's offers, then receives on one
/// client `PeerTransport` without decoding anything. Per stream it counts packets, bytes and loss
/// (RFC 3550 reception statistics), NACKs gaps at once and sends a PLI when a video packet stays
/// missing for a second, sends receiver reports every second, and records each packet's
/// end-to-end delay from the send time its publisher stamped (`SendTimeStamp`).
///
/// A counting-only subscriber (`countingOnly`, the capacity search of `make bench-sfu`) costs the
/// load generator as little per packet as it can: once ICE and DTLS are done its socket is
/// drained every few ms by its shared I/O thread, many datagrams per `recvmmsg`
/// (`PeerTransportParameters.sweepWhenConnected`), and after the first RTP packet (decrypted: the
/// keys work) none is decrypted; each is counted from its clear header (RFC 3711 §3.1) as above.
/// The RTCP it sends stays what any subscriber sends: receiver reports once a second (the
/// pacer's), NACKs for gaps and PLIs. A run that counts in the kernel (`LoadRun(kernelCounting:)`)
/// then drops this subscriber's RTP before its socket: it sees only STUN and DTLS, keeps its
/// transport alive and its reports going, and counts nothing more itself.
///
/// Packets and feedback run on the transport's I/O thread; offers are applied from the
/// signaling task before the transport exists, and on the I/O thread after.
// @unchecked Sendable: `remote` and the streams are set by the signaling task before the transport exists, then used only on its I/O thread; the transport is in a Mutex, the flags Atomic.
package final class LoadSubscriber: PeerTransportDelegate, @unchecked Sendable {
    /// The publisher stream a subscribed section carries, for delivery figures.
    package typealias SourceLookup = @Sendable (_ mid: String, _ kind: TrackKind) -> LoadStreamSender?

    private let certificate: DTLSCertificate
    private let localICE = ICECredentials.random()
    private let sessionID = String(UInt64.random(in: 1_000_000_000 ... 9_999_999_999))
    private let feedbackSSRC = UInt32.random(in: 1 ... .max)
    private let bindAddress: String
    private let transport = Mutex<PeerTransport?>(nil)
    private var remote: SDPNegotiation.RemoteDescription?

    // I/O thread (or the signaling task before the transport exists).
    private var streams: [LoadReceivedStream] = []
    private var latency = LogHistogram()
    /// Monotonic µs when this subscriber asked for media (first-packet delays count from here).
    private var requestTime: Int64 = LoadClock.now()

    package let connected = Atomic<Bool>(false)
    package let failed = Atomic<Bool>(false)
    /// RTP packets received (all streams), readable from any thread.
    package let packetsReceived = Atomic<Int>(0)

    /// What a subscriber accepts: the SDK's codecs and extensions, plus abs-capture-time and the
    /// AV1 Dependency Descriptor (a browser takes it, so the server rewrites it per subscriber as
    /// for a browser); no RED (it counts and captures Opus packets as they come).
    static let capabilities: MediaCapabilities = {
        var capabilities = SDPNegotiation.receiveCapabilities
        capabilities.audioCodecs.removeAll(where: \.isRED)
        capabilities.headerExtensions.append(RTPHeaderExtensionURI.absCaptureTime)
        capabilities.headerExtensions.append(RTPHeaderExtensionURI.dependencyDescriptor)
        return capabilities
    }()

    /// Keep every packet's payload (for checks that decode what arrived; never in a load run).
    private let capture: Bool
    /// Decrypt one RTP packet in this many (`PeerTransportParameters.rtpDecryptionInterval`);
    /// the rest are counted from their clear headers. 1 when capturing.
    private let decryptionInterval: Int
    /// The threads serving the transport's socket; nil: a thread of its own.
    private let sharedLoops: SharedUDPLoops?
    /// Counting-only (see the type's comment).
    package let countingOnly: Bool

    /// - Parameters:
    ///   - decryptionInterval: SRTP-decrypt one RTP packet in this many, count the others
    ///     undecrypted (a load generator cheaper than the server it loads; ignored with `capture`).
    ///   - sharedLoops: serve the transport on these threads (`PeerTransportParameters.sharedLoops`).
    ///   - countingOnly: decrypt no RTP packet after the first and, once connected, drain the
    ///     socket on `sharedLoops`' sweep timer (needs them; ignored with `capture`).
    package init(certificate: DTLSCertificate, bindAddress: String, capture: Bool = false, decryptionInterval: Int = 1,
                 sharedLoops: SharedUDPLoops? = nil, countingOnly: Bool = false) {
        self.sharedLoops = sharedLoops
        self.certificate = certificate
        self.bindAddress = bindAddress
        self.capture = capture
        self.countingOnly = countingOnly && !capture && sharedLoops != nil
        self.decryptionInterval = capture ? 1 : self.countingOnly ? .max : max(1, decryptionInterval)
    }

    /// The local address of the media socket, once the transport exists.
    package var localAddress: SocketAddress? { transport.withLock { $0 }?.localAddress }

    /// Notes that subscription requests go out now.
    package func markRequested() {
        requestTime = LoadClock.now()
    }

    // MARK: - Negotiation

    /// Binds the sections of `offer` that carry media to receive streams and returns the answer.
    /// - Parameter source: the publisher stream behind a section (by its mid in this offer).
    package func answer(offer: String, source: SourceLookup) throws -> String {
        let description = try SDPNegotiation.describe(offer)
        let parsed = try SessionDescription(parsing: offer)
        let answer = try SDPNegotiation.subscribeAnswer(to: offer, ice: localICE, fingerprint: certificate.fingerprint,
                                                        sessionID: sessionID, capabilities: Self.capabilities)
        var wanted: [LoadReceivedStream] = []
        for section in description.sections where !section.rejected && section.direction.sends {
            guard let kind = section.kind, let m = parsed.media.first(where: { $0.mid == section.mid }) else { continue }
            let captureID = m.extensionID(uri: RTPHeaderExtensionURI.absCaptureTime).flatMap { (1...14).contains($0) ? UInt8($0) : nil } ?? 0
            wanted.append(LoadReceivedStream(mid: section.mid, kind: kind, ssrc: section.ssrcs.first ?? 0,
                                             absCaptureTimeID: captureID, source: source(section.mid, kind), capture: capture))
        }
        let bound = wanted
        let apply: @Sendable (LoadSubscriber) -> Void = { subscriber in subscriber.bind(bound) }
        if let transport = transport.withLock({ $0 }) {
            transport.execute { [self] _ in apply(self) }
        } else {
            apply(self)
            remote = description
        }
        return answer
    }

    /// Keeps streams already bound to the same mid and SSRC (their counters go on), adds the new.
    private func bind(_ wanted: [LoadReceivedStream]) {
        streams = wanted.map { stream in
            streams.first { $0.mid == stream.mid && $0.ssrc == stream.ssrc && $0.kind == stream.kind } ?? stream
        }
    }

    /// Starts the transport toward the server of the first offer (once it has the answer).
    package func connect() throws {
        guard transport.withLock({ $0 }) == nil, let remote else { return }
        var parameters = PeerTransportParameters(
            iceRole: .controlling, localICE: localICE, remoteICE: ICECredentials(ufrag: remote.iceUfrag, pwd: remote.icePwd),
            remoteCandidates: try LocalOnly.filter(remote.candidates), certificate: certificate, remoteFingerprint: remote.fingerprint,
            dtlsRole: SDPNegotiation.localDTLSRole(remoteSetup: remote.setup), connectTimeout: .seconds(20))
        parameters.rtpDecryptionInterval = decryptionInterval
        parameters.sharedLoops = sharedLoops
        parameters.sweepWhenConnected = countingOnly
        // A counting subscriber is one of hundreds of transports: its timers every 50 ms, not 10.
        if decryptionInterval > 1 { parameters.clientTickInterval = .milliseconds(50) }
        guard let bind = SocketAddress(ip: bindAddress, port: 0) else { throw LoadError.setup("bad bind address \(bindAddress)") }
        let peer = try PeerTransport.client(parameters, bind: bind, delegate: self)
        transport.withLock { $0 = peer }
    }

    // MARK: - Driven by the pacer

    /// Runs `body` on the transport's I/O thread (not at all before it exists).
    func execute(_ body: @escaping @Sendable (LoadSubscriber, PeerTransport) -> Void) -> Bool {
        guard let peer = transport.withLock({ $0 }) else { return false }
        peer.execute { [self] t in body(self, t) }
        return true
    }

    /// Receiver reports, and PLIs for video packets missing for a second (I/O thread): one
    /// compound per stream, its report (of that stream alone) leading, as browsers send them. A
    /// server may take a compound's first report block to say which stream the compound is about:
    /// Janus does, and with every block in one report it saw none for video, so never measured
    /// the video's round trip and kept no packets to answer video NACKs with.
    func sendFeedback(on transport: PeerTransport) {
        let now = LoadClock.now()
        let seconds = Date().timeIntervalSince1970
        var sent = false
        for stream in streams {
            let block = stream.receptionReport(now: seconds)
            let pli = stream.expireMissing(now: now)
            let overdue = stream.overdueNACKs
            guard block != nil || pli || !overdue.isEmpty else { continue }
            var packets: [RTCPPacket] = [.receiverReport(ReceiverReport(ssrc: feedbackSSRC, reports: block.map { [$0] } ?? []))]
            if !overdue.isEmpty { packets.append(.nack(TransportLayerNack(senderSSRC: feedbackSSRC, mediaSSRC: stream.ssrc, lost: overdue))) }
            if pli { packets.append(.pictureLossIndication(PictureLossIndication(senderSSRC: feedbackSSRC, mediaSSRC: stream.ssrc))) }
            RTCPCompound.serialize(packets).withUnsafeBytes { _ = transport.sendRTCP($0) }
            sent = true
        }
        // Nothing received yet: an empty report still says this receiver is there (RFC 3550 §6.4.2).
        if !sent {
            RTCPCompound.serialize([.receiverReport(ReceiverReport(ssrc: feedbackSSRC, reports: []))]).withUnsafeBytes { _ = transport.sendRTCP($0) }
        }
    }

    /// The counters now; `resetLatency` starts a new delay distribution (I/O thread).
    func snapshot(resetLatency: Bool) -> LoadSubscriberSnapshot {
        let now = LoadClock.now()
        let snapshot = LoadSubscriberSnapshot(streams: streams.map { $0.statistics(now: now, requestTime: requestTime) },
                                              latency: latency, connected: connected.load(ordering: .acquiring))
        if resetLatency { latency = LogHistogram() }
        return snapshot
    }

    /// The counters, taken on the I/O thread; before the transport exists, an empty snapshot.
    package func snapshot(resetLatency: Bool) async -> LoadSubscriberSnapshot {
        await withCheckedContinuation { continuation in
            let posted = execute { subscriber, _ in continuation.resume(returning: subscriber.snapshot(resetLatency: resetLatency)) }
            if !posted { continuation.resume(returning: LoadSubscriberSnapshot(streams: [], latency: LogHistogram(), connected: false)) }
        }
    }

    /// The publisher streams behind the bound sections (taken on the I/O thread).
    package func sources() async -> [LoadStreamSender] {
        await withCheckedContinuation { continuation in
            let posted = execute { subscriber, _ in continuation.resume(returning: subscriber.streams.compactMap(\.source)) }
            if !posted { continuation.resume(returning: []) }
        }
    }

    /// The packets captured so far, by stream kind (`capture` only).
    package func capturedPackets(kind: TrackKind) async -> [[LoadReceivedStream.CapturedPacket]] {
        await withCheckedContinuation { continuation in
            let posted = execute { subscriber, _ in
                continuation.resume(returning: subscriber.streams.filter { $0.kind == kind }.compactMap(\.captured))
            }
            if !posted { continuation.resume(returning: []) }
        }
    }

    func close() {
        transport.withLock { $0 }?.close()
    }

    // MARK: - PeerTransportDelegate (I/O thread)

    package func peerTransport(_ transport: PeerTransport, didChangeState state: PeerTransport.State) {
        switch state {
        case .connected: connected.store(true, ordering: .releasing)
        case .failed, .closed:
            failed.store(true, ordering: .releasing)
            connected.store(false, ordering: .releasing)
        case .new, .checking: break
        }
    }

    package func peerTransport(_ transport: PeerTransport, didReceiveRTP packet: UnsafeMutableRawBufferPointer) {
        guard let view = try? RTPPacketView(UnsafeRawBufferPointer(packet)) else { return }
        count(view, on: transport)
    }

    /// The packets left encrypted (`decryptionInterval`): counted from their clear header. The
    /// padding bit is cleared first, as the padding count sits in the encrypted payload.
    package func peerTransport(_ transport: PeerTransport, didReceiveProtectedRTP packet: UnsafeMutableRawBufferPointer) {
        guard !packet.isEmpty else { return }
        packet[0] &= ~0x20
        guard let view = try? RTPPacketView(UnsafeRawBufferPointer(packet)) else { return }
        count(view, on: transport)
    }

    /// Counts one packet: loss, NACKs for a new gap, its end-to-end delay (header fields only).
    private func count(_ view: RTPPacketView, on transport: PeerTransport) {
        let ssrc = view.ssrc
        guard let stream = streams.first(where: { $0.ssrc == ssrc }) ?? adopt(view) else { return }
        packetsReceived.add(1, ordering: .relaxed)
        let now = LoadClock.now()
        if let sent = SendTimeStamp.read(view, absCaptureTimeID: stream.absCaptureTimeID) {
            latency.record(SendTimeStamp.micros(from: sent, to: SendTimeStamp.now()))
        }
        let missing = stream.receive(view, now: now)
        if !missing.isEmpty {
            let nack = RTCPPacket.nack(TransportLayerNack(senderSSRC: feedbackSSRC, mediaSSRC: ssrc, lost: missing))
            RTCPCompound.serialize([nack]).withUnsafeBytes { _ = transport.sendRTCP($0) }
        }
    }

    /// A packet whose SSRC the offers did not list: bind it to the only stream of its kind that
    /// has not received anything yet (a server that signals no `a=ssrc`).
    private func adopt(_ view: RTPPacketView) -> LoadReceivedStream? {
        let unbound = streams.filter { $0.isEmpty && $0.ssrc == 0 }
        guard unbound.count == 1 else { return nil }
        unbound[0].ssrc = view.ssrc
        return unbound[0]
    }

    package func peerTransport(_ transport: PeerTransport, didReceiveRTCP packet: UnsafeMutableRawBufferPointer) {
        guard let compound = try? RTCPCompoundView(UnsafeRawBufferPointer(packet)) else { return }
        let seconds = Date().timeIntervalSince1970
        for slice in compound where slice.header.packetType == RTCPPacketType.senderReport {
            guard let report = try? SenderReport(parsing: slice.bytes) else { continue }
            streams.first { $0.ssrc == report.ssrc }?.senderReportArrived(report.ntpTime, at: seconds)
        }
    }
}

/// What a subscriber counted, taken on its I/O thread.
package struct LoadSubscriberSnapshot: Sendable {
    package var streams: [LoadReceivedStream.Statistics]
    package var latency: LogHistogram
    package var connected: Bool
}
