import RTCWire

/// Data channels: SCTP (usrsctp) over this transport's DTLS association (RFC 8261, RFC 8831).
/// The association is created when the transport starts and connects once DTLS is up; DTLS
/// application records carry its packets. Everything runs on the I/O thread.
extension PeerTransport {
    /// Opens a data channel (see `DataChannelEndpoint.open`); `nil` without SCTP parameters.
    /// I/O thread only (use `execute` from elsewhere).
    @discardableResult
    public func openDataChannel(label: String, protocol: String = "", reliability: DataChannelReliability = .reliable,
                                negotiatedID: UInt16? = nil) -> UInt16? {
        setUpDataChannels()  // before `start` too: the open waits for the association
        return dataChannels?.open(label: label, protocol: `protocol`, reliability: reliability, negotiatedID: negotiatedID)
    }

    /// Sends one message on data channel `id`. I/O thread only.
    public func sendData(_ data: UnsafeRawBufferPointer, on id: UInt16, binary: Bool = true) throws(SCTPError) {
        guard let dataChannels else { throw .notConnected }
        try dataChannels.send(data, on: id, binary: binary)
    }

    func setUpDataChannels() {
        guard let sctp = parameters.sctp, dataChannels == nil else { return }
        let association: SCTPAssociation
        do {
            association = try SCTPAssociation(
                localPort: sctp.localPort, remotePort: sctp.remotePort, remoteMaxMessageSize: sctp.remoteMaxMessageSize,
                output: { [weak self] packet in
                    let bytes = [UInt8](packet)
                    self?.execute { transport in transport.sendSCTP(bytes) }
                },
                execute: { [weak self] work in self?.execute { _ in work() } })
        } catch {
            return
        }
        let endpoint = DataChannelEndpoint(association: association, isDTLSClient: dtls.role == .client)
        endpoint.onEvent = { [unowned self] event in delegate?.peerTransport(self, didReceiveDataChannelEvent: event) }
        dataChannels = endpoint
    }

    /// After DTLS started over: the old association never came up, `finish` closed it, or the peer
    /// began a new one (`DTLSEndpoint.beginNewAssociation`). A new one takes over the channels
    /// still waiting to open and the negotiated ones that were open (RFC 8831 §6.5), so the
    /// revived transport has the same channels. Taken before the old association closes.
    func renewDataChannels() {
        guard let old = dataChannels else { return }
        dataChannels = nil
        setUpDataChannels()
        dataChannels?.takeWaitingOpens(from: old)
        old.association.close()
    }

    func connectDataChannels() {
        try? dataChannels?.association.connect()
    }

    func receiveSCTP(_ records: [[UInt8]]) {
        guard let association = dataChannels?.association else { return }
        for record in records { record.withUnsafeBytes { association.receive($0) } }
    }

    /// An SCTP packet from usrsctp: one DTLS record, sent at once.
    private func sendSCTP(_ packet: [UInt8]) {
        guard state == .connected || state == .failed else { return }
        let output = packet.withUnsafeBytes { dtls.write($0) }
        sendControl(output.datagrams, to: remoteAddress)
    }
}
