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
        if case .controlling(var agent) = ice {
            let actions = agent.start(now: now)
            ice = .controlling(agent)
            perform(actions, now: now)
        }
    }

    /// Handles one datagram routed to this transport.
    /// `stun` is the message when the caller already parsed it (the port does, to route by USERNAME).
    func receive(_ datagram: UnsafeMutableRawBufferPointer, from source: SocketAddress, kind: PacketKind, stun: STUNMessage?) {
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
            // DTLS only from the address ICE validated (RFC 8445 §11: media follows checks).
            guard source == remoteAddress, currentState != .closed, currentState != .failed else { return }
            if awaitingRemote {
                // The peer's answer (with its fingerprint) is on its way: keep its first flight.
                if heldDTLS.count < 8 { heldDTLS.append(Array(datagram)) }
                return
            }
            handleDTLS(dtls.handle(UnsafeRawBufferPointer(datagram)))
        case .rtp, .rtcp:
            guard let srtp, source == remoteAddress else { return }
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
            } else {
                let length = try srtp.unprotectRTP(datagram, length: datagram.count)
                stats.rtpReceived += 1
                delegate?.peerTransport(self, didReceiveRTP: UnsafeMutableRawBufferPointer(rebasing: datagram[0..<length]))
            }
        } catch {
            stats.unprotectFailures += 1
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
        if dtls.state == .handshaking { handleDTLS(dtls.handleTimeout()) }
        if dataChannels != nil { SCTPStack.runTimers(now: now) }
        if currentState != .connected, let deadline, now > deadline {
            restarting = false
            srtp = nil
            fail()
        }
    }

    private func iceTick(now: ContinuousClock.Instant) -> [ICEAction] {
        let actions: [ICEAction]
        switch ice {
        case .lite(var lite):
            nextLiteTick = now + .milliseconds(100)
            actions = lite.tick(now: now)
            ice = .lite(lite)
        case .controlling(var agent):
            nextLiteTick = nil
            actions = agent.tick(now: now)
            ice = .controlling(agent)
        }
        return actions
    }

    func perform(_ actions: [ICEAction], now: ContinuousClock.Instant) {
        for action in actions {
            switch action {
            case .send(let bytes, let to):
                bytes.withUnsafeBytes { _ = io.sendQueue.enqueue($0, to: to) }
            case .selected(let address):
                let previous = remoteAddress
                remoteAddress = address
                host?.peerTransport(self, didSelect: address, previous: previous)
                if dtls.role == .client && dtls.state == .new { handleDTLS(dtls.start()) }
                if restarting, srtp != nil {
                    // The restart found a path: same keys, media resumes.
                    restarting = false
                    setState(.connected)
                }
            case .stateChanged(let iceState):
                switch iceState {
                case .checking: if currentState == .new { setState(.checking) }
                case .failed: iceFailed()
                case .new, .connected: break
                }
            }
        }
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
        dataChannels?.association.close()
        setState(final)
        host?.peerTransportDidFinish(self)
    }

    func setState(_ new: State) {
        guard new != currentState else { return }
        if new == .connected && currentState == .new { setState(.checking) }
        currentState = new
        sharedState.withLock { $0 = new }
        delegate?.peerTransport(self, didChangeState: new)
    }
}
