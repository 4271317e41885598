import CUsrSCTP
#if canImport(Glibc)
import Glibc
#endif

/// One SCTP association over DTLS (RFC 8261), run by usrsctp with an AF_CONN socket: packets go
/// out through `output` (the owner wraps them in DTLS records) and come in through `receive(_:)`.
///
/// **Threading.** An association belongs to its owner's thread (a `PeerTransport`'s I/O thread).
/// `connect`, `receive`, `send`, `resetStreams` and `close` are called there; `onEvent` runs
/// there too. usrsctp may emit packets from whichever thread runs its timers, so `output` must
/// be safe from any thread (the transport hops to its I/O thread with `execute`).
// @unchecked Sendable: the usrsctp socket and reassembly state are used on the owner's I/O thread; `output` and `execute`, called from usrsctp's timer thread, are @Sendable.
public final class SCTPAssociation: @unchecked Sendable {
    /// What happened on the association (owner's thread).
    public enum Event: Sendable, Equatable {
        /// The four-way handshake finished (both sides may send).
        case connected
        /// A complete message arrived on `stream` with payload protocol id `ppid`.
        case message(stream: UInt16, ppid: UInt32, data: [UInt8])
        /// The peer reset these incoming streams (it closed the data channels on them).
        case streamsReset([UInt16])
        /// The association ended (shutdown, abort, or it never came up).
        case closed
    }

    /// The SCTP port both sides use in WebRTC unless `a=sctp-port` says otherwise (RFC 8841 §5).
    public static let defaultPort: UInt16 = 5000
    /// The largest message we accept and announce (`a=max-message-size`, RFC 8841 §6).
    public static let maxMessageSize = 262_144

    /// Hands an SCTP packet to the lower layer. Any thread.
    let output: @Sendable (UnsafeRawBufferPointer) -> Void
    /// Runs work on the owner's thread (inline when already there).
    let execute: @Sendable (@escaping @Sendable () -> Void) -> Void
    /// Receives events on the owner's thread. Set before `connect()`.
    public var onEvent: (Event) -> Void = { _ in }
    /// `true` between `.connected` and `.closed`.
    public private(set) var isConnected = false
    /// The largest message the peer accepts.
    public var remoteMaxMessageSize: Int

    private var id: UInt = 0
    private var socket: OpaquePointer?
    private let localPort: UInt16
    private let remotePort: UInt16
    /// Fragments of a message usrsctp delivered in parts (no MSG_EOR yet), per stream.
    private var partial: [UInt16: [UInt8]] = [:]
    private var closed = false

    /// Creates the socket (not yet connected).
    /// - Parameters:
    ///   - output: called with each outgoing SCTP packet, from any thread.
    ///   - execute: runs a closure on the owner's thread.
    public init(localPort: UInt16 = SCTPAssociation.defaultPort, remotePort: UInt16 = SCTPAssociation.defaultPort,
                remoteMaxMessageSize: Int = 65_536,
                output: @escaping @Sendable (UnsafeRawBufferPointer) -> Void,
                execute: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) throws(SCTPError) {
        self.localPort = localPort
        self.remotePort = remotePort
        self.remoteMaxMessageSize = remoteMaxMessageSize
        self.output = output
        self.execute = execute

        id = SCTPStack.register(self)
        usrsctp_register_address(UnsafeMutableRawPointer(bitPattern: id))
        guard let socket = usrsctp_socket(AF_CONN, Int32(SOCK_STREAM.rawValue), Int32(IPPROTO_SCTP), sctpReceive, nil, 0,
                                          UnsafeMutableRawPointer(bitPattern: id)) else {
            teardownRegistration()
            throw .setupFailed("usrsctp_socket: errno \(errno)")
        }
        self.socket = socket
        do throws(SCTPError) { try configure(socket) } catch {
            usrsctp_close(socket)
            self.socket = nil
            teardownRegistration()
            throw error
        }
    }

    deinit {
        if let socket { usrsctp_close(socket) }
        teardownRegistration()
    }

    // MARK: - Owner's thread

    /// Starts the association. Both WebRTC peers connect (an SCTP simultaneous open, RFC 9260 §5.2.1).
    public func connect() throws(SCTPError) {
        guard let socket else { throw .notConnected }
        var address = connAddress(port: remotePort)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { usrsctp_connect(socket, UnsafeMutablePointer(mutating: $0), socklen_t(MemoryLayout<sockaddr_conn>.size)) }
        }
        if result < 0 && errno != EINPROGRESS { throw .setupFailed("usrsctp_connect: errno \(errno)") }
    }

    /// Feeds one SCTP packet that arrived in a DTLS record.
    public func receive(_ packet: UnsafeRawBufferPointer) {
        guard !closed, let base = packet.baseAddress, !packet.isEmpty else { return }
        usrsctp_conninput(UnsafeMutableRawPointer(bitPattern: id), base, packet.count, 0)
    }

    /// Sends one message on `stream`.
    /// - Parameters:
    ///   - ordered: in order relative to the stream's other ordered messages.
    ///   - maxRetransmits: partial reliability by retransmission count (RFC 3758); `nil` is reliable.
    ///   - maxLifetime: partial reliability by lifetime in milliseconds; ignored when `maxRetransmits` is set.
    public func send(_ data: UnsafeRawBufferPointer, stream: UInt16, ppid: UInt32, ordered: Bool = true,
                     maxRetransmits: UInt32? = nil, maxLifetime: UInt32? = nil) throws(SCTPError) {
        guard let socket, isConnected else { throw .notConnected }
        guard data.count <= remoteMaxMessageSize else { throw .messageTooLarge(size: data.count, limit: remoteMaxMessageSize) }
        var info = sctp_sendv_spa()
        info.sendv_flags = UInt32(SCTP_SEND_SNDINFO_VALID)
        info.sendv_sndinfo.snd_sid = stream
        info.sendv_sndinfo.snd_ppid = ppid.bigEndian // usrsctp passes the PPID through in network order
        info.sendv_sndinfo.snd_flags = UInt16(SCTP_EOR) | (ordered ? 0 : UInt16(SCTP_UNORDERED))
        if let maxRetransmits {
            info.sendv_flags |= UInt32(SCTP_SEND_PRINFO_VALID)
            info.sendv_prinfo.pr_policy = UInt16(SCTP_PR_SCTP_RTX)
            info.sendv_prinfo.pr_value = maxRetransmits
        } else if let maxLifetime {
            info.sendv_flags |= UInt32(SCTP_SEND_PRINFO_VALID)
            info.sendv_prinfo.pr_policy = UInt16(SCTP_PR_SCTP_TTL)
            info.sendv_prinfo.pr_value = maxLifetime
        }
        // An empty message goes out as one byte with an "empty" PPID (RFC 8831 §6.6); the caller
        // picks the PPID, SCTP cannot carry zero bytes.
        var zero: UInt8 = 0
        let sent = withUnsafeMutablePointer(to: &zero) { zeroPointer in
            usrsctp_sendv(socket, data.isEmpty ? UnsafeRawPointer(zeroPointer) : data.baseAddress, max(data.count, 1), nil, 0,
                          &info, socklen_t(MemoryLayout<sctp_sendv_spa>.size), UInt32(SCTP_SENDV_SPA), 0)
        }
        if sent < 0 {
            if errno == EWOULDBLOCK || errno == EAGAIN { throw .wouldBlock }
            throw .sendFailed("usrsctp_sendv: errno \(errno)")
        }
    }

    /// Resets our outgoing `streams` (closing their data channels, RFC 8831 §6.7).
    public func resetStreams(_ streams: [UInt16]) {
        guard let socket, isConnected, !streams.isEmpty else { return }
        // struct sctp_reset_streams: assoc id (4), flags (2), count (2), then the stream list.
        var request = [UInt8](repeating: 0, count: 8 + 2 * streams.count)
        request.withUnsafeMutableBytes { raw in
            raw.storeBytes(of: UInt16(SCTP_STREAM_RESET_OUTGOING), toByteOffset: 4, as: UInt16.self)
            raw.storeBytes(of: UInt16(streams.count), toByteOffset: 6, as: UInt16.self)
            for (i, stream) in streams.enumerated() { raw.storeBytes(of: stream, toByteOffset: 8 + 2 * i, as: UInt16.self) }
        }
        _ = usrsctp_setsockopt(socket, Int32(IPPROTO_SCTP), SCTP_RESET_STREAMS, request, socklen_t(request.count))
    }

    /// Aborts the association and frees the socket. Idempotent.
    public func close() {
        guard !closed else { return }
        closed = true
        if let socket { usrsctp_close(socket) }
        socket = nil
        if isConnected {
            isConnected = false
            onEvent(.closed)
        }
        teardownRegistration()
    }

    // MARK: - Internals

    private func teardownRegistration() {
        guard id != 0 else { return }
        usrsctp_deregister_address(UnsafeMutableRawPointer(bitPattern: id))
        SCTPStack.unregister(id)
    }

    private func connAddress(port: UInt16) -> sockaddr_conn {
        var address = sockaddr_conn()
        address.sconn_family = UInt16(AF_CONN)
        address.sconn_port = port.bigEndian
        address.sconn_addr = UnsafeMutableRawPointer(bitPattern: id)
        return address
    }

    private func configure(_ socket: OpaquePointer) throws(SCTPError) {
        func set<T: BitwiseCopyable>(_ level: Int32, _ option: Int32, _ value: T, _ name: String) throws(SCTPError) {
            let status = withUnsafeBytes(of: value) { raw in
                usrsctp_setsockopt(socket, level, option, raw.baseAddress, socklen_t(raw.count))
            }
            guard status == 0 else {
                throw .setupFailed("setsockopt \(name): errno \(errno)")
            }
        }
        guard usrsctp_set_non_blocking(socket, 1) == 0 else { throw .setupFailed("usrsctp_set_non_blocking: errno \(errno)") }
        let proto = Int32(IPPROTO_SCTP)
        // Closing aborts at once (no lingering SHUTDOWN exchange after the transport is gone).
        try set(Int32(SOL_SOCKET), Int32(SO_LINGER), linger(l_onoff: 1, l_linger: 0), "SO_LINGER")
        try set(proto, SCTP_ENABLE_STREAM_RESET,
                sctp_assoc_value(assoc_id: sctp_assoc_t(SCTP_ALL_ASSOC), assoc_value: UInt32(SCTP_ENABLE_RESET_STREAM_REQ)),
                "SCTP_ENABLE_STREAM_RESET")
        try set(proto, SCTP_NODELAY, Int32(1), "SCTP_NODELAY")
        try set(proto, SCTP_RECVRCVINFO, Int32(1), "SCTP_RECVRCVINFO")
        // Data channels use up to 65535 streams; ask for 1024 each way (RFC 8831 §6.2 lets the
        // association grow later), as browsers do.
        try set(proto, SCTP_INITMSG, sctp_initmsg(sinit_num_ostreams: 1024, sinit_max_instreams: 1024,
                                                  sinit_max_attempts: 0, sinit_max_init_timeo: 0), "SCTP_INITMSG")
        for type in [SCTP_ASSOC_CHANGE, SCTP_STREAM_RESET_EVENT] {
            try set(proto, SCTP_EVENT, sctp_event(se_assoc_id: sctp_assoc_t(SCTP_ALL_ASSOC), se_type: UInt16(type), se_on: 1),
                    "SCTP_EVENT")
        }
        // A fixed path MTU that fits a DTLS record in a datagram; no path MTU discovery over AF_CONN.
        var params = sctp_paddrparams()
        params.spp_assoc_id = sctp_assoc_t(SCTP_FUTURE_ASSOC)
        params.spp_pathmtu = SCTPStack.pathMTU
        params.spp_flags = UInt32(SPP_PMTUD_DISABLE)
        try set(proto, SCTP_PEER_ADDR_PARAMS, params, "SCTP_PEER_ADDR_PARAMS")
        var local = connAddress(port: localPort)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { usrsctp_bind(socket, UnsafeMutablePointer(mutating: $0), socklen_t(MemoryLayout<sockaddr_conn>.size)) }
        }
        guard bound == 0 else { throw .setupFailed("usrsctp_bind: errno \(errno)") }
    }

    /// A message, a fragment or a notification from usrsctp (copied; any thread).
    fileprivate func delivered(_ bytes: [UInt8]?, stream: UInt16, ppid: UInt32, flags: Int32) {
        execute { [self] in handleDelivery(bytes, stream: stream, ppid: ppid, flags: flags) }
    }

    private func handleDelivery(_ bytes: [UInt8]?, stream: UInt16, ppid: UInt32, flags: Int32) {
        guard !closed else { return }
        guard let bytes else {
            markClosed()
            return
        }
        if flags & Int32(MSG_NOTIFICATION) != 0 {
            handleNotification(bytes)
            return
        }
        var message = bytes
        if flags & Int32(MSG_EOR) == 0 {
            // A fragment: keep it (bounded by the largest message we announce) until the last part.
            var pending = partial[stream, default: []]
            if pending.count + bytes.count <= Self.maxMessageSize { pending += bytes } else { pending = [] }
            partial[stream] = pending
            return
        }
        if let pending = partial.removeValue(forKey: stream) { message = pending + bytes }
        onEvent(.message(stream: stream, ppid: ppid, data: message))
    }

    /// Notifications (RFC 6458 §6.1): association up and down, incoming stream resets.
    private func handleNotification(_ bytes: [UInt8]) {
        guard bytes.count >= 8 else { return }
        let type = Int32(UInt16(bytes[0]) | UInt16(bytes[1]) << 8)
        bytes.withUnsafeBytes { raw in
            switch type {
            case Int32(SCTP_ASSOC_CHANGE):
                guard raw.count >= 10 else { return }
                let state = Int32(raw.loadUnaligned(fromByteOffset: 8, as: UInt16.self))
                if state == SCTP_COMM_UP || state == SCTP_RESTART {
                    guard !isConnected else { return }
                    isConnected = true
                    onEvent(.connected)
                } else if state == SCTP_COMM_LOST || state == SCTP_SHUTDOWN_COMP || state == SCTP_CANT_STR_ASSOC {
                    markClosed()
                }
            case Int32(SCTP_STREAM_RESET_EVENT):
                let flags = Int32(raw.loadUnaligned(fromByteOffset: 2, as: UInt16.self))
                let length = min(Int(raw.loadUnaligned(fromByteOffset: 4, as: UInt32.self)), raw.count)
                guard flags & SCTP_STREAM_RESET_INCOMING_SSN != 0,
                      flags & (SCTP_STREAM_RESET_DENIED | SCTP_STREAM_RESET_FAILED) == 0, length >= 12 else { return }
                let streams = stride(from: 12, to: length - 1, by: 2).map { raw.loadUnaligned(fromByteOffset: $0, as: UInt16.self) }
                onEvent(.streamsReset(streams))
            default:
                return
            }
        }
    }

    private func markClosed() {
        let wasConnected = isConnected
        isConnected = false
        partial = [:]
        if wasConnected { onEvent(.closed) } else { onEvent(.closed) }
    }
}

/// usrsctp's receive callback: copies the data (which this callback must free) and hands it to
/// the association on its owner's thread.
private func sctpReceive(_ socket: OpaquePointer?, _ address: sctp_sockstore, _ data: UnsafeMutableRawPointer?,
                         _ length: Int, _ info: sctp_rcvinfo, _ flags: Int32, _ ulpInfo: UnsafeMutableRawPointer?) -> Int32 {
    defer { if let data { free(data) } }
    guard let association = SCTPStack.association(UInt(bitPattern: ulpInfo)) else { return 1 }
    let bytes = data.map { [UInt8](UnsafeRawBufferPointer(start: $0, count: length)) }
    association.delivered(bytes, stream: info.rcv_sid, ppid: UInt32(bigEndian: info.rcv_ppid), flags: flags)
    return 1
}
