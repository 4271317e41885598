import COpenSSL
import RTCCrypto

/// One DTLS 1.2 association (RFC 6347) for DTLS-SRTP (RFC 5764), driven by datagrams and timer
/// ticks: every method returns the datagrams to send and, when something happened, an event. No
/// I/O here, so the whole handshake is tested in memory.
///
/// OpenSSL reads from a memory BIO that is fed one datagram at a time, and writes through a small
/// custom BIO that records each write as its own datagram (a memory BIO would merge a flight's
/// records, and the MTU is set so each write fits a datagram). The peer's certificate must hash
/// to the fingerprint from the signaling; the check runs inside the handshake, so a mismatch
/// aborts it with an alert (RFC 8122 §5, RFC 8827 §6.5).
///
/// One stray datagram cannot end an association: `DTLSRecordFilter` drops what is malformed or
/// unauthenticated (plaintext alerts) before OpenSSL sees it, and a server that has not answered
/// anything yet starts over with a fresh connection object when a ClientHello still fails (the
/// real peer's ClientHello, or its retransmission, then succeeds). Only an authenticated alert, a
/// verdict on the peer's own handshake (fingerprint, profiles) or the timeout fail it.
///
/// Not thread-safe: owned by one I/O thread. Handshake traffic is rare, so datagrams are arrays.
public final class DTLSEndpoint {
    /// DTLS client (SDP `a=setup:active`) or server (`a=setup:passive`), RFC 5763 §5.
    public enum Role: Sendable { case client, server }

    public enum State: Sendable, Equatable { case new, handshaking, connected, failed, closed }

    /// What a call brought about.
    public enum Event: Sendable, Equatable {
        /// The handshake finished; `keys` are ready.
        case connected(SRTPProfile)
        /// The handshake failed or the peer sent a fatal alert.
        case failed(DTLSError)
        /// The peer sent close_notify.
        case closed
    }

    /// Datagrams to send, what happened, and application data that arrived (SCTP packets of
    /// data channels, RFC 8261).
    public struct Output: Sendable {
        public var datagrams: [[UInt8]] = []
        public var event: Event?
        public var applicationData: [[UInt8]] = []
    }

    public let role: Role
    public private(set) var state: State = .new
    /// The negotiated profile, after `.connected`.
    public private(set) var srtpProfile: SRTPProfile?
    /// The exported keying material (RFC 5764 §4.2), after `.connected`.
    public private(set) var keyingMaterial: [UInt8]?
    /// Datagrams dropped unread (malformed or unauthenticated), and why the last one was.
    public private(set) var ignoredDatagrams = 0
    public private(set) var lastIgnored: DTLSRecordFilter.Rejection?
    /// Handshakes a server restarted because an unanswered ClientHello failed.
    public private(set) var discardedHandshakes = 0

    private let context: OpaquePointer
    private var ssl: OpaquePointer
    private let mtu: Int
    private let outbox: DTLSOutbox
    private let verifier: DTLSPeerVerifier
    /// This endpoint has sent a datagram (a server: it answered a ClientHello).
    private var hasSent = false

    /// - Parameters:
    ///   - remoteFingerprint: from the peer's SDP; the handshake fails unless its certificate matches.
    ///     `nil` while the SDP is not there yet: set it with `expect(_:)` before feeding datagrams.
    ///   - profiles: offered (client) or accepted (server) in preference order.
    ///   - mtu: the largest datagram OpenSSL may write; handshake messages are fragmented to fit.
    public init(role: Role, certificate: DTLSCertificate, remoteFingerprint: DTLSFingerprint?,
                profiles: [SRTPProfile] = [.aeadAES128GCM, .aes128CMSHA1_80], mtu: Int = 1200) throws(DTLSError) {
        self.role = role
        let verifier = DTLSPeerVerifier(expected: remoteFingerprint), outbox = DTLSOutbox()
        self.verifier = verifier
        self.outbox = outbox
        guard let ctx = SSL_CTX_new(DTLS_method()) else { throw .setupFailed("SSL_CTX_new: " + Self.openSSLErrors()) }
        var ok = srtc_SSL_CTX_set_min_proto_version(ctx, DTLS1_2_VERSION) == 1
        ok = ok && SSL_CTX_use_certificate(ctx, certificate.certificate) == 1
        ok = ok && SSL_CTX_use_PrivateKey(ctx, certificate.privateKey) == 1
        ok = ok && SSL_CTX_set_cipher_list(ctx, Self.cipherList) == 1
        ok = ok && srtc_SSL_CTX_set1_groups_list(ctx, "X25519:P-256:P-384") == 1
        // Note the inverted convention: 0 means success here.
        ok = ok && SSL_CTX_set_tlsext_use_srtp(ctx, profiles.map(\.openSSLName).joined(separator: ":")) == 0
        guard ok else {
            SSL_CTX_free(ctx)
            throw .setupFailed("SSL_CTX setup: " + Self.openSSLErrors())
        }
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, dtlsVerifyCallback)
        context = ctx
        self.mtu = mtu
        guard let ssl = Self.makeConnection(ctx, role: role, mtu: mtu, verifier: verifier, outbox: outbox) else {
            SSL_CTX_free(ctx)
            throw .setupFailed("SSL_new: " + Self.openSSLErrors())
        }
        self.ssl = ssl
    }

    deinit {
        SSL_free(ssl)
        SSL_CTX_free(context)
    }

    /// One OpenSSL connection object reading from a memory BIO and writing through the outbox.
    private static func makeConnection(_ ctx: OpaquePointer, role: Role, mtu: Int, verifier: DTLSPeerVerifier,
                                       outbox: DTLSOutbox) -> OpaquePointer? {
        guard let ssl = SSL_new(ctx) else { return nil }
        _ = SSL_set_options(ssl, srtc_SSL_OP_NO_QUERY_MTU())
        _ = srtc_SSL_set_mtu(ssl, mtu)
        _ = SSL_set_ex_data(ssl, 0, Unmanaged.passUnretained(verifier).toOpaque())
        guard let readBIO = BIO_new(BIO_s_mem()), let writeBIO = BIO_new(DTLSOutbox.method) else {
            SSL_free(ssl)
            return nil
        }
        _ = srtc_BIO_set_mem_eof_return(readBIO, -1) // empty means "retry", not EOF
        BIO_set_data(writeBIO, Unmanaged.passUnretained(outbox).toOpaque())
        SSL_set_bio(ssl, readBIO, writeBIO)
        if role == .client { SSL_set_connect_state(ssl) } else { SSL_set_accept_state(ssl) }
        return ssl
    }

    // MARK: - Events in, datagrams out

    /// Sets the fingerprint the peer's certificate must hash to (from an SDP that came after setup).
    public func expect(_ fingerprint: DTLSFingerprint) {
        verifier.expected = fingerprint
    }

    /// Starts the handshake: the client sends its ClientHello; the server waits for one.
    public func start() -> Output {
        guard state == .new else { return Output() }
        state = .handshaking
        return role == .client ? step() : Output()
    }

    /// Starts over before the handshake completed: a new connection object on the same context,
    /// state `.new`, nothing queued to send and the ignored-datagram counters reset; the expected
    /// fingerprint stays. For an ICE restart of a transport whose DTLS never finished (its peer
    /// went away mid-handshake, or a new peer transport sends a new ClientHello): RFC 8445 §9
    /// keeps a DTLS association only when there is one. Refused (returns `false`) once connected
    /// or closed: an established association is kept across ICE restarts.
    @discardableResult
    public func restart() -> Bool {
        guard state != .connected, state != .closed else { return false }
        return startOver()
    }

    /// A new association on an established one (RFC 6347 §4.2.8): the peer made a new connection
    /// (a browser's new `RTCPeerConnection` after an ICE restart, with the same certificate) and
    /// sends a ClientHello at epoch 0. A server takes it with a fresh connection object; the keys
    /// already exported stay with the SRTP context made from them until the new handshake
    /// completes and brings new ones. Refused (`false`) by a client or before connected.
    @discardableResult
    public func beginNewAssociation() -> Bool {
        guard role == .server, state == .connected else { return false }
        return startOver()
    }

    /// Whether `datagram` starts a handshake: a ClientHello in a record of epoch 0 (RFC 6347 §4.1:
    /// content type 22, the epoch in bytes 3–4, the handshake type after the 13-byte header). An
    /// established association's own records are all of epoch 1 or later.
    public static func isInitialClientHello(_ datagram: UnsafeRawBufferPointer) -> Bool {
        datagram.count > 13 && datagram[0] == 22 && datagram[3] == 0 && datagram[4] == 0 && datagram[13] == 1
    }

    /// Handles one received DTLS datagram; one that is malformed or unauthenticated is ignored.
    public func handle(_ datagram: UnsafeRawBufferPointer) -> Output {
        guard !datagram.isEmpty, datagram.count < Int(Int32.max) else { return Output() }
        if let rejection = DTLSRecordFilter.check(datagram, receivedBy: role) {
            ignoredDatagrams += 1
            lastIgnored = rejection
            return Output()
        }
        switch state {
        case .new:
            state = .handshaking
        case .failed, .closed:
            return Output()
        case .handshaking, .connected:
            break
        }
        _ = BIO_write(SSL_get_rbio(ssl), datagram.baseAddress, Int32(datagram.count))
        return step()
    }

    /// `handle(_:)` for an array.
    public func handle(_ datagram: [UInt8]) -> Output {
        datagram.withUnsafeBytes { handle($0) }
    }

    /// Retransmits the last flight when its timer ran out (RFC 6347 §4.2.4). Call it on every
    /// tick while handshaking; it does nothing when the timer has not expired.
    public func handleTimeout() -> Output {
        guard state == .handshaking else { return Output() }
        let result = srtc_DTLSv1_handle_timeout(ssl)
        var output = Output(datagrams: outbox.take())
        if result < 0 {
            state = .failed
            output.event = .failed(.timeout)
        }
        return output
    }

    /// Time left until `handleTimeout()` has work, or `nil` when no timer runs.
    public var timeUntilRetransmit: Duration? {
        var tv = timeval()
        guard srtc_DTLSv1_get_timeout(ssl, &tv) == 1 else { return nil }
        return .seconds(Int64(tv.tv_sec)) + .microseconds(Int64(tv.tv_usec))
    }

    /// Sends close_notify (RFC 5246 §7.2.1) and closes.
    public func close() -> Output {
        guard state == .connected || state == .handshaking else { state = .closed; return Output() }
        ERR_clear_error()
        _ = SSL_shutdown(ssl)
        state = .closed
        return Output(datagrams: outbox.take())
    }

    /// Encrypts `data` as one application data record (one datagram), after `.connected`.
    /// Returns no datagram when the association is not connected or OpenSSL refuses the write.
    public func write(_ data: UnsafeRawBufferPointer) -> Output {
        guard state == .connected, !data.isEmpty, data.count < Int(Int32.max) else { return Output() }
        ERR_clear_error()
        _ = SSL_write(ssl, data.baseAddress, Int32(data.count))
        return Output(datagrams: outbox.take())
    }

    /// An `SRTPContext` from the exported keys, after `.connected`.
    public func makeSRTPContext() throws(SRTPError) -> SRTPContext? {
        guard let profile = srtpProfile, let material = keyingMaterial else { return nil }
        return try SRTPContext(profile: profile, keyingMaterial: material, isDTLSClient: role == .client)
    }

    // MARK: - Internals

    private func step() -> Output {
        var output = Output()
        output.event = state == .handshaking ? continueHandshake() : readAfterHandshake(into: &output.applicationData)
        // Records that came in the same datagram as the peer's last handshake message.
        if case .connected? = output.event { _ = readAfterHandshake(into: &output.applicationData) }
        output.datagrams = outbox.take()
        if !output.datagrams.isEmpty { hasSent = true }
        return output
    }

    private func continueHandshake() -> Event? {
        ERR_clear_error()
        let result = SSL_do_handshake(ssl)
        if result == 1 { return finishHandshake() }
        let code = SSL_get_error(ssl, result)
        if code == SSL_ERROR_WANT_READ || code == SSL_ERROR_WANT_WRITE { return nil }
        if role == .server, !hasSent, !verifier.mismatched, restartHandshake() { return nil }
        state = .failed
        return .failed(verifier.mismatched ? .fingerprintMismatch : .handshakeFailed(Self.openSSLErrors()))
    }

    private func finishHandshake() -> Event {
        // Check again outside the callback: the certificate OpenSSL accepted must be the expected one.
        guard let peer = SSL_get1_peer_certificate(ssl) else { state = .failed; return .failed(.fingerprintMismatch) }
        defer { X509_free(peer) }
        guard verifier.matches(peer) else {
            _ = SSL_shutdown(ssl)
            state = .failed
            return .failed(.fingerprintMismatch)
        }
        guard let selected = SSL_get_selected_srtp_profile(ssl),
              let profile = SRTPProfile(rawValue: UInt16(truncatingIfNeeded: selected.pointee.id)) else {
            state = .failed
            return .failed(.noSRTPProfile)
        }
        var material = [UInt8](repeating: 0, count: 2 * profile.masterLength)
        let label = "EXTRACTOR-dtls_srtp" // RFC 5764 §4.2
        guard SSL_export_keying_material(ssl, &material, material.count, label, label.utf8.count, nil, 0, 0) == 1 else {
            state = .failed
            return .failed(.handshakeFailed("keying material export: " + Self.openSSLErrors()))
        }
        srtpProfile = profile
        keyingMaterial = material
        state = .connected
        return .connected(profile)
    }

    /// A server that has answered nothing yet forgets a ClientHello OpenSSL refused (and the alert
    /// it would send): what failed came from nobody the handshake has heard of, and the real peer's
    /// ClientHello must still find a server waiting for it.
    private func restartHandshake() -> Bool {
        guard replaceConnection() else { return false }
        discardedHandshakes += 1
        return true
    }

    /// A fresh connection object in state `.new`, the counters of ignored datagrams reset; the
    /// expected fingerprint stays.
    private func startOver() -> Bool {
        guard replaceConnection() else { return false }
        state = .new
        hasSent = false
        ignoredDatagrams = 0
        lastIgnored = nil
        verifier.mismatched = false
        return true
    }

    /// A fresh connection object in place of the current one, with nothing queued to send.
    private func replaceConnection() -> Bool {
        guard let fresh = Self.makeConnection(context, role: role, mtu: mtu, verifier: verifier, outbox: outbox) else { return false }
        _ = outbox.take()
        SSL_free(ssl)
        ssl = fresh
        ERR_clear_error()
        return true
    }

    /// After the handshake come application data (SCTP packets of data channels), alerts
    /// (close_notify) and retransmitted flights. Media itself never uses DTLS records (RFC 5764).
    private func readAfterHandshake(into data: inout [[UInt8]]) -> Event? {
        var scratch = [UInt8](repeating: 0, count: 2048)
        while true {
            ERR_clear_error()
            let n = SSL_read(ssl, &scratch, Int32(scratch.count))
            if n > 0 {
                data.append(Array(scratch[0..<Int(n)]))
                continue
            }
            switch SSL_get_error(ssl, n) {
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE: return nil
            case SSL_ERROR_ZERO_RETURN: state = .closed; return .closed
            default: state = .failed; return .failed(.handshakeFailed(Self.openSSLErrors()))
            }
        }
    }

    /// ECDHE with ECDSA (our certificate type), AEAD first.
    static let cipherList = "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-ECDSA-AES128-SHA:ECDHE-ECDSA-AES256-SHA"

    static func openSSLErrors() -> String {
        var messages = [String]()
        while case let code = ERR_get_error(), code != 0 {
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            messages.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return messages.isEmpty ? "unknown" : messages.joined(separator: "; ")
    }
}

/// Holds the expected fingerprint for the verify callback and remembers a mismatch.
final class DTLSPeerVerifier {
    /// `nil` until the peer's SDP arrived; no certificate matches then.
    var expected: DTLSFingerprint?
    var mismatched = false

    init(expected: DTLSFingerprint?) { self.expected = expected }

    func matches(_ certificate: OpaquePointer) -> Bool {
        guard let expected, let actual = DTLSFingerprint.of(certificate: certificate, algorithm: expected.algorithm),
              ConstantTime.equals(actual.bytes, expected.bytes) else {
            mismatched = true
            return false
        }
        return true
    }
}

/// Accepts a self-signed chain (WebRTC certificates are self-signed) exactly when the leaf
/// certificate hashes to the expected fingerprint.
private func dtlsVerifyCallback(_ preverified: Int32, _ store: OpaquePointer?) -> Int32 {
    guard let store,
          let sslPointer = X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx()),
          let verifierPointer = SSL_get_ex_data(OpaquePointer(sslPointer), 0) else { return 0 }
    // Only the leaf (depth 0) is the peer's own certificate; intermediates do not occur.
    guard X509_STORE_CTX_get_error_depth(store) == 0 else { return 1 }
    guard let certificate = X509_STORE_CTX_get_current_cert(store) else { return 0 }
    let verifier = Unmanaged<DTLSPeerVerifier>.fromOpaque(verifierPointer).takeUnretainedValue()
    return verifier.matches(certificate) ? 1 : 0
}
