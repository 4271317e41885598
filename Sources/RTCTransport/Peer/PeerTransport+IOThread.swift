import RTCNet
import RTCWire

// The transport's side of the I/O thread: datagrams routed to it, timers, ICE actions and DTLS
// outcomes, and the state changes they cause (the threading contract is on `PeerTransport`).
extension PeerTransport {
    /// Starts ICE (controlling: the first checks go out) and the connect timer.
    func start(now: ContinuousClock.Instant) {
        guard !started else { return }
        started = true
        deadline = now + parameters.connectTimeout
        setUpDataChannels()
        startRelay(now: now)
        if case .controlling(var agent) = ice {
            let actions = agent.start(now: now)
            ice = .controlling(agent)
            perform(actions, now: now)
        }
    }

    /// Handles one datagram routed to this transport.
    /// `stun` is the message when the caller already parsed it (the port does, to route by USERNAME);
    /// `stream` is the ICE-TCP connection it came on (`nil` for UDP).
    func receive(_ datagram: UnsafeMutableRawBufferPointer, from source: SocketAddress, kind: PacketKind, stun: STUNMessage?,
                 via stream: ICETCPConnection? = nil) {
        inboundStream = stream
        defer { inboundStream = nil }
        if kind != .rtp && kind != .rtcp { quietUntil = 0 }  // checks and DTLS can start timers
        switch kind {
        case .stun:
            guard let message = stun ?? (try? STUNMessage(parsing: UnsafeRawBufferPointer(datagram))) else { return }
            let raw = UnsafeRawBufferPointer(datagram)
            let now = ContinuousClock.now
            let actions: [ICEAction]
            switch ice {
            case .lite(var lite):
                actions = lite.handle(message, raw: raw, from: source, now: now)
                ice = .lite(lite)
            case .controlling(var agent):
                actions = agent.handle(message, raw: raw, from: source, now: now)
                ice = .controlling(agent)
            }
            perform(actions, now: now)
        case .dtls:
            // DTLS only from the path ICE validated (RFC 8445 §11: media follows checks).
            guard source == remoteAddress, stream === selectedStream, inboundRelayed == (relayChannel != nil),
                  currentState != .closed, currentState != .failed else { return }
            if awaitingRemote {
                // The peer's answer (with its fingerprint) is on its way: keep its first flight.
                if heldDTLS.count < 8 { heldDTLS.append(Array(datagram)) }
                return
            }
            if associationRenewable, dtls.state == .connected, DTLSEndpoint.isInitialClientHello(UnsafeRawBufferPointer(datagram)),
               dtls.beginNewAssociation() {
                // The peer made a new connection after the ICE restart (a browser's new peer
                // connection with the same certificate): a new association, new keys once it is
                // up, and its data channels start over with it.
                associationRenewable = false
                renewingAssociation = true
                renewDataChannels()
            }
            handleDTLS(dtls.handle(UnsafeRawBufferPointer(datagram)))
        case .rtp, .rtcp:
            guard let srtp, source == remoteAddress, stream === selectedStream, inboundRelayed == (relayChannel != nil) else { return }
            receiveMedia(datagram, rtcp: kind == .rtcp, srtp: srtp)
        case .probe, .unknown:
            return
        }
    }

    @inline(__always)
    func receiveMedia(_ datagram: UnsafeMutableRawBufferPointer, rtcp: Bool, srtp: SRTPContext) {
        do throws(SRTPError) {
            if rtcp {
                let length = try srtp.unprotectRTCP(datagram, length: datagram.count)
                stats.rtcpReceived += 1
                delegate?.peerTransport(self, didReceiveRTCP: UnsafeMutableRawBufferPointer(rebasing: datagram[0..<length]))
            } else if rtpUntilDecryption > 0 {
                // Not this one (`rtpDecryptionInterval`): counted by its clear header only.
                rtpUntilDecryption -= 1
                let tag = srtpProfile?.rtpOverhead ?? 0
                guard datagram.count >= 12 + tag else { stats.unprotectFailures += 1; return }
                stats.rtpReceived += 1
                delegate?.peerTransport(self, didReceiveProtectedRTP: UnsafeMutableRawBufferPointer(rebasing: datagram[0..<datagram.count - tag]))
            } else {
                rtpUntilDecryption = rtpDecryptionInterval - 1
                let length = try srtp.unprotectRTP(datagram, length: datagram.count)
                stats.rtpReceived += 1
                delegate?.peerTransport(self, didReceiveRTP: UnsafeMutableRawBufferPointer(rebasing: datagram[0..<length]))
            }
        } catch {
            stats.unprotectFailures += 1
            if !rtcp, error == .replayed {
                delegate?.peerTransport(self, didReceiveReplayedRTP: UnsafeRawBufferPointer(datagram))
            }
        }
    }

    /// Timers: ICE checks and consent, DTLS retransmission, the connect deadline.
    func tick(now: ContinuousClock.Instant) {
        guard currentState != .closed, currentState != .failed || restarting else { return }
        let actions: [ICEAction]
        if let next = nextLiteTick, now < next {
            // ICE-lite (only it sets `nextLiteTick`) watches just its consent deadline (seconds):
            // every 100 ms is plenty. Checked before `switch ice`, which copies the whole machine
            // out of the enum, retaining every reference in it, even for a case it then skips (a
            // server ticks every peer every 10 ms; the copy was 3 % of the server at 1→50).
            actions = []
        } else {
            actions = iceTick(now: now)
        }
        perform(actions, now: now)
        // `turn != nil` copied the whole TURN client out of its optional (retaining what it holds)
        // for every peer every 10 ms; matching the case reads only its tag.
        if case .some = turn { tickRelay(now: now) }
        if dtls.state == .handshaking { handleDTLS(dtls.handleTimeout()) }
        if dataChannels != nil { SCTPStack.runTimers(now: now) }
        if currentState != .connected, let deadline, now > deadline {
            restarting = false
            srtp = nil
            fail()
        }
        // Connected over ICE-lite with nothing else running (no relay, DTLS done, no data
        // channels, whose SCTP timers run from here): nothing to do before consent could expire
        // (a valid check clears `quietUntil`, so the deadline is looked at again after each one).
        // Looking at every such transport every 10 ms, and copying its ICE machine out every
        // 100 ms, was most of the port's tick at 1→50.
        if currentState == .connected, let next = nextLiteTick, case .none = turn, dtls.state != .handshaking, dataChannels == nil {
            let until = liteConsentDeadline.map { max($0, next) } ?? next
            quietUntil = Monotonic.now() &+ Monotonic.nanoseconds(until - now)
        } else {
            quietUntil = 0
        }
    }

    private func iceTick(now: ContinuousClock.Instant) -> [ICEAction] {
        let actions: [ICEAction]
        switch ice {
        case .lite(var lite):
            nextLiteTick = now + .milliseconds(100)
            actions = lite.tick(now: now)
            liteConsentDeadline = lite.consentDeadline
            ice = .lite(lite)
        case .controlling(var agent):
            nextLiteTick = nil
            var due = agent.tick(now: now)
            if silenceWatch.isSilent(received: stats.rtpReceived &+ stats.rtcpReceived, now: now) {
                due += agent.checkConsentNow(now: now)
            }
            actions = due
            ice = .controlling(agent)
        }
        return actions
    }

    func perform(_ actions: [ICEAction], now: ContinuousClock.Instant) {
        for action in actions {
            switch action {
            case .send(let bytes, let to):
                // A reply to a check that came over ICE-TCP goes back on its connection.
                if let stream = inboundStream, stream.remoteAddress == to {
                    bytes.withUnsafeBytes { _ = stream.send($0) }
                } else {
                    bytes.withUnsafeBytes { _ = io.send($0, to: to) }
                }
            case .sendVia(.tcp, let bytes, let to):
                guard let stream = clientStream(to: to) else { continue }
                bytes.withUnsafeBytes { _ = stream.send($0) }
            case .sendVia(.relay, let bytes, let to):
                sendCheckViaRelay(bytes, to: to)
            case .selected(let address):
                if let stream = inboundStream, stream.remoteAddress == address {
                    select(address, stream: stream)
                } else {
                    select(address, stream: nil)
                }
            case .selectedVia(.tcp, let address):
                guard let stream = clientStreams[address] else { continue }
                select(address, stream: stream)
            case .selectedVia(.relay, let address):
                guard let channel = turn?.channel(for: address) else { continue }
                select(address, stream: nil, relayChannel: channel)
            case .stateChanged(let iceState):
                switch iceState {
                case .checking: if currentState == .new { setState(.checking) }
                case .failed: iceFailed()
                case .new, .connected: break
                }
            }
        }
    }

    /// Media now uses `address`, over `stream` when ICE chose an ICE-TCP connection, or through the
    /// TURN relay on `relayChannel`.
    private func select(_ address: SocketAddress, stream: ICETCPConnection?, relayChannel: UInt16? = nil) {
        let previous = remoteAddress
        remoteAddress = address
        selectedStream = stream
        self.relayChannel = relayChannel
        stream?.transport = self
        // The port routes UDP datagrams by source address; a TCP connection is routed by itself.
        if stream == nil, relayChannel == nil { host?.peerTransport(self, didSelect: address, previous: previous) }
        // A client's other connections are not needed any more (RFC 6544 §7.2: only the selected pair stays).
        for (to, other) in clientStreams where other !== stream {
            other.close()
            clientStreams[to] = nil
        }
        if dtls.role == .client && dtls.state == .new { handleDTLS(dtls.start()) }
        if restarting, srtp != nil {
            // The restart found a path: same keys, media resumes.
            restarting = false
            setState(.connected)
        }
        let restarted = awaitingRestartedPath
        awaitingRestartedPath = false
        if let previous, previous != address || restarted { delegate?.peerTransport(self, didMoveTo: address, from: previous) }
    }

    /// A client's ICE-TCP connection to a passive candidate, opened on first use (RFC 6544 §7.1).
    private func clientStream(to address: SocketAddress) -> ICETCPConnection? {
        if let stream = clientStreams[address], !stream.isClosed { return stream }
        guard let stream = try? ICETCPConnection.connect(to: address, loop: io) else { return nil }
        stream.transport = self
        stream.onPacket = { [unowned self] stream, packet in
            let kind = PacketKind.classify(UnsafeRawBufferPointer(packet))
            receive(packet, from: stream.remoteAddress, kind: kind, stun: nil, via: stream)
        }
        stream.onClose = { [unowned self] stream in
            if clientStreams[stream.remoteAddress] === stream { clientStreams[stream.remoteAddress] = nil }
        }
        clientStreams[address] = stream
        return stream
    }

    func handleDTLS(_ output: DTLSEndpoint.Output) {
        sendControl(output.datagrams, to: remoteAddress)
        switch output.event {
        case .connected(let profile)?:
            do throws(SRTPError) {
                srtp = try dtls.makeSRTPContext()
                srtpProfile = profile
                setState(.connected)
                connectDataChannels()
                if renewingAssociation, let address = remoteAddress {
                    // What was sent before went under the old keys: a key frame under the new ones.
                    renewingAssociation = false
                    delegate?.peerTransport(self, didMoveTo: address, from: address)
                }
            } catch {
                fail()
            }
        case .failed?:
            fail()
        case .closed?:
            finish(.closed)
        case nil:
            break
        }
        receiveSCTP(output.applicationData)
    }

    func closeOnIOThread() {
        guard currentState != .closed else { return }
        restarting = false
        dataChannels?.association.close()
        sendControl(dtls.close().datagrams, to: remoteAddress)
        io.sendQueue.flush(on: io.socket)
        finish(.closed)
    }

    func fail() { finish(.failed) }

    /// ICE lost its path (consent expired or checks failed). Before DTLS finished that ends the
    /// transport; after, the keys stay so an ICE restart can resume media (RFC 8445 §9).
    func iceFailed() {
        guard srtp != nil else { return fail() }
        restarting = false
        guard currentState != .closed, currentState != .failed else { return }
        setState(.failed)
        host?.peerTransportDidFinish(self)
    }

    func finish(_ final: State) {
        guard currentState != .closed, currentState != .failed || final == .closed else { return }
        srtp = nil
        for stream in clientStreams.values { stream.close() }
        clientStreams = [:]
        dataChannels?.association.close()
        setState(final)
        host?.peerTransportDidFinish(self)
    }

    func setState(_ new: State) {
        quietUntil = 0
        guard new != currentState else { return }
        if new == .connected && currentState == .new { setState(.checking) }
        currentState = new
        sharedState.withLock { $0 = new }
        if new == .connected, parameters.sweepWhenConnected { io.sweep() }
        delegate?.peerTransport(self, didChangeState: new)
    }
}
