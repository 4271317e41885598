import Foundation
import RTCNet
import RTCTransport
import RTCWire
import Synchronization
import TestWait

/// One client `PeerTransport` (ICE controlling, DTLS client, own socket on loopback) that records
/// everything it receives, for tests.
// @unchecked Sendable: `transport` is set once in init; what arrives is in `log` (Mutex), the callbacks in CallbackSlots, the switch Atomic.
public final class TransportEndpoint: PeerTransportDelegate, @unchecked Sendable {
    public struct Received: Sendable {
        public var states: [PeerTransport.State] = []
        public var rtp: [RTPPacket] = []
        public var rtcp: [RTCPPacket] = []
        public var dataChannel: [DataChannelEndpoint.Event] = []
    }

    public let log = Mutex(Received())
    public private(set) var transport: PeerTransport!
    /// Called on the I/O thread with each RTP packet and each RTCP compound received.
    public let onRTP = CallbackSlot<@Sendable (RTPPacket) -> Void>()
    public let onRTCP = CallbackSlot<@Sendable ([RTCPPacket]) -> Void>()
    /// `false`: packets go to the callbacks only, not into `log` (a long run would keep them all).
    public let recordsPackets = Atomic(true)
    /// RTX streams (RFC 4588) the answer kept: RTX SSRC → the media SSRC and payload type it
    /// repairs (`setRepairs`). A resend on one is logged as the original packet it carries, as a
    /// receiver's jitter buffer takes it; padding-only RTX packets (probes) are counted, not logged.
    private let repairs = Mutex<[UInt32: (ssrc: UInt32, payloadType: UInt8)]>([:])
    /// Packets that arrived on an RTX stream: resends (unwrapped into `log.rtp`) and padding.
    public let rtxResends = Atomic(0), rtxPadding = Atomic(0)

    /// Connects to the server described by `remote` (its SDP answer or offer).
    /// - Parameters:
    ///   - relay: send to the server through this relay instead of its announced candidates.
    ///   - dataChannels: channels agreed out of band to create when `remote` offers an application section.
    public init(localICE: ICECredentials, certificate: DTLSCertificate, remote: SessionDescription, relay: LossyRelay? = nil,
                dataChannels: [DataChannelInfo] = []) throws {
        guard let section = remote.media.first(where: { !$0.isRejected }) ?? remote.media.first,
              let ufrag = remote.iceUfrag(of: section), let pwd = remote.icePwd(of: section),
              let fp = remote.fingerprints(of: section).first else { throw TestSignalClient.Failure(description: "remote SDP lacks ICE or DTLS parameters") }
        var candidates = (section.candidates.isEmpty ? remote.media.flatMap(\.candidates) : section.candidates).compactMap { c -> ICECandidate? in
            guard let address = SocketAddress(ip: c.address, port: c.port) else { return nil }
            return ICECandidate(foundation: c.foundation, component: Int(c.component), priority: c.priority, address: address)
        }
        if let relay { candidates = [ICECandidate(address: relay.address)] }
        guard !candidates.isEmpty else { throw TestSignalClient.Failure(description: "remote SDP has no candidates") }
        let fingerprint = try DTLSFingerprint(sdpValue: fp.description)
        let application = remote.media.first { $0.kind == .application && !$0.isRejected }
        let sctp = dataChannels.isEmpty ? nil : application.map { SCTPParameters(remotePort: $0.sctpPort ?? SCTPAssociation.defaultPort) }
        transport = try PeerTransport.client(
            PeerTransportParameters(iceRole: .controlling, localICE: localICE, remoteICE: ICECredentials(ufrag: ufrag, pwd: pwd),
                                    remoteCandidates: candidates, certificate: certificate, remoteFingerprint: fingerprint,
                                    dtlsRole: .client, connectTimeout: .seconds(15), sctp: sctp),
            bind: SocketAddress(ip: "127.0.0.1", port: 0)!, delegate: self)
        for c in dataChannels where sctp != nil {
            transport.execute { t in t.openDataChannel(label: c.label, reliability: c.reliability, negotiatedID: c.id) }
        }
    }

    // MARK: - PeerTransportDelegate (I/O thread)

    public func peerTransport(_ transport: PeerTransport, didChangeState state: PeerTransport.State) {
        log.withLock { $0.states.append(state) }
    }

    public func peerTransport(_ transport: PeerTransport, didReceiveRTP packet: UnsafeMutableRawBufferPointer) {
        let raw = UnsafeRawBufferPointer(packet)
        guard raw.count >= 12 else { return }
        let ssrc = raw.loadUnaligned(fromByteOffset: 8, as: UInt32.self).bigEndian
        if let repaired = repairs.withLock({ $0[ssrc] }) {
            let original = withUnsafeTemporaryAllocation(byteCount: raw.count, alignment: 1) { out -> RTPPacket? in
                guard let length = RTXPacket.unwrap(raw, into: out, ssrc: repaired.ssrc, payloadType: repaired.payloadType) else { return nil }
                return try? RTPPacket(parsing: UnsafeRawBufferPointer(rebasing: out[0 ..< length]))
            }
            guard let original else { rtxPadding.add(1, ordering: .relaxed); return }
            rtxResends.add(1, ordering: .relaxed)
            if recordsPackets.load(ordering: .relaxed) { log.withLock { $0.rtp.append(original) } }
            onRTP.function?(original)
            return
        }
        guard let parsed = try? RTPPacket(parsing: raw) else { return }
        if recordsPackets.load(ordering: .relaxed) { log.withLock { $0.rtp.append(parsed) } }
        onRTP.function?(parsed)
    }

    public func peerTransport(_ transport: PeerTransport, didReceiveRTCP packet: UnsafeMutableRawBufferPointer) {
        guard let packets = try? RTCPCompound.parse(UnsafeRawBufferPointer(packet)) else { return }
        if recordsPackets.load(ordering: .relaxed) { log.withLock { $0.rtcp.append(contentsOf: packets) } }
        onRTCP.function?(packets)
    }

    public func peerTransport(_ transport: PeerTransport, didReceiveDataChannelEvent event: DataChannelEndpoint.Event) {
        log.withLock { $0.dataChannel.append(event) }
    }

    // MARK: - Use

    /// Learns the RTX streams `answer` kept for the sections of `offer` (their `FID` groups).
    public func setRepairs(offer: SessionDescription, answer: SessionDescription) {
        var map: [UInt32: (ssrc: UInt32, payloadType: UInt8)] = [:]
        for (offered, answered) in zip(offer.media, answer.media) where !answered.isRejected {
            guard let rtx = answered.codecs.first(where: \.isRTX), let apt = rtx.associatedPayloadType else { continue }
            for group in offered.ssrcGroups where group.semantics == "FID" && group.ssrcs.count > 1 {
                map[group.ssrcs[1]] = (group.ssrcs[0], apt)
            }
        }
        repairs.withLock { $0 = map }
    }

    /// Sends one message on a data channel.
    public func send(data: [UInt8], binary: Bool, on channel: UInt16) {
        transport.execute { t in data.withUnsafeBytes { try? t.sendData($0, on: channel, binary: binary) } }
    }

    /// Waits until DTLS is up.
    public func waitConnected() async throws {
        guard await waitFor({ $0.states.last == .connected }) else {
            throw TestSignalClient.Failure(description: "transport did not connect: \(log.withLock { $0.states })")
        }
    }

    /// Sends RTP packets on the transport's I/O thread.
    public func send(rtp packets: [[UInt8]]) {
        transport.execute { t in
            for packet in packets { packet.withUnsafeBytes { _ = t.sendRTP($0) } }
            t.flush()
        }
    }

    /// Sends one RTCP compound packet.
    public func send(rtcp packets: [RTCPPacket]) {
        let bytes = RTCPCompound.serialize(packets)
        transport.execute { t in
            bytes.withUnsafeBytes { _ = t.sendRTCP($0) }
            t.flush()
        }
    }

    /// RTP received with `ssrc`, in arrival order.
    public func packets(ssrc: UInt32) -> [RTPPacket] {
        log.withLock { $0.rtp.filter { $0.ssrc == ssrc } }
    }

    /// Whether `condition` comes to hold on what was received.
    public func waitFor(_ condition: (Received) -> Bool) async -> Bool {
        await holds { log.withLock { condition($0) } }
    }

    public func close() { transport?.close() }
}
