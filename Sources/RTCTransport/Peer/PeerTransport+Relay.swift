import RTCNet
import RTCWire

/// A client transport's TURN relay (RFC 8656): the allocation runs beside ICE on the transport's
/// socket; checks to a remote candidate by the relay route, and media once ICE selected it, travel
/// as ChannelData on the candidate's channel. Everything runs on the I/O thread.
extension PeerTransport {
    /// Checks queued while their channel is being bound, at most.
    static let maxPendingRelay = 32

    func startRelay(now: ContinuousClock.Instant) {
        guard var client = turn else { return }
        let actions = client.start(now: now)
        turn = client
        performTURN(actions, now: now)
    }

    /// An ICE restart: the allocation may belong to an address the device no longer has
    /// (`TURNClient.revalidate`).
    func revalidateRelay(now: ContinuousClock.Instant) {
        guard var client = turn else { return }
        let actions = client.revalidate(now: now)
        turn = client
        performTURN(actions, now: now)
    }

    func tickRelay(now: ContinuousClock.Instant) {
        guard var client = turn else { return }
        let actions = client.tick(now: now)
        turn = client
        performTURN(actions, now: now)
    }

    /// A datagram from the TURN server: a response to our requests, or ChannelData from a peer.
    /// Returns `false` when it is neither (it may be ICE traffic of a server on the same address).
    func receiveFromRelay(_ datagram: UnsafeMutableRawBufferPointer, kind: PacketKind) -> Bool {
        guard var client = turn else { return false }
        let raw = UnsafeRawBufferPointer(datagram)
        if kind == .stun {
            guard let message = try? STUNMessage(parsing: raw), client.isResponse(message) else { return false }
            let actions = client.handle(message, raw: raw, now: .now)
            turn = client
            performTURN(actions, now: .now)
            return true
        }
        guard let parsed = TURNChannelData.parse(raw), let peer = client.peer(for: parsed.channel) else { return false }
        let inner = UnsafeMutableRawBufferPointer(rebasing: datagram[parsed.payload])
        stats.relayedReceived += 1
        inboundRelayed = true
        defer { inboundRelayed = false }
        receive(inner, from: peer, kind: PacketKind.classify(UnsafeRawBufferPointer(inner)), stun: nil)
        return true
    }

    /// A check to `peer` by the relay: on its channel when bound, otherwise queued and the channel asked for.
    func sendCheckViaRelay(_ bytes: [UInt8], to peer: SocketAddress) {
        guard var client = turn, client.state != .failed else { return }
        if let channel = client.channel(for: peer) {
            _ = sendRelayed(on: channel, to: client.server.address) { room in
                guard bytes.count <= room.count else { return nil }
                bytes.withUnsafeBytes { room.copyMemory(from: $0) }
                return bytes.count
            }
            return
        }
        if pendingRelay.count < Self.maxPendingRelay { pendingRelay.append((peer, bytes)) }
        let actions = client.bind(peer: peer, now: .now)
        turn = client
        performTURN(actions, now: .now)
    }

    /// Lets `write` fill the data of a ChannelData message on `channel` in a send slot (RFC 8656 §12.4).
    func sendRelayed(on channel: UInt16, to server: SocketAddress, _ write: (UnsafeMutableRawBufferPointer) -> Int?) -> Bool {
        let queued = io.send(to: server) { slot in
            let room = UnsafeMutableRawBufferPointer(rebasing: slot[TURNChannelData.headerLength...])
            guard let length = write(room), length > 0, length <= 0xFFFF else { return nil }
            TURNChannelData.writeHeader(channel: channel, length: length, into: slot)
            return TURNChannelData.headerLength + length
        }
        if queued { stats.relayedSent += 1 }
        return queued
    }

    private func performTURN(_ actions: [TURNClient.Action], now: ContinuousClock.Instant) {
        guard let server = turn?.server.address else { return }
        for action in actions {
            switch action {
            case .send(let bytes):
                bytes.withUnsafeBytes { _ = io.send($0, to: server) }
            case .allocated:
                break
            case .channelBound(let peer, _):
                let waiting = pendingRelay.filter { $0.peer == peer }
                pendingRelay.removeAll { $0.peer == peer }
                for item in waiting { sendCheckViaRelay(item.bytes, to: peer) }
            case .failed:
                // The relay pairs fail by their checks' timeouts; direct pairs go on.
                pendingRelay.removeAll()
            }
        }
    }
}
