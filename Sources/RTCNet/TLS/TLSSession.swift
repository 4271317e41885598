import COpenSSL

/// One TLS connection driven through memory BIOs: the event loop feeds it ciphertext read from the
/// socket and sends the ciphertext it produces, so TLS never touches the descriptor and works with
/// the non-blocking reactor unchanged. Made on any thread, then used only on its connection's loop.
// @unchecked Sendable: the SSL object and its BIOs are used only on the connection's loop thread (made elsewhere, handed over once before first use).
final class TLSSession: @unchecked Sendable {
    private let ssl: OpaquePointer
    private let readBIO: OpaquePointer
    private let writeBIO: OpaquePointer
    private(set) var handshakeDone = false

    /// - Parameters:
    ///   - context: the shared `SSL_CTX`.
    ///   - host: for clients, the name to send in SNI and to verify (an IP address is verified as such).
    init(context: TLSContext, host: String?) throws(NetError) {
        ERR_clear_error()
        guard let ssl = SSL_new(context.context) else { throw .tls("SSL_new: \(TLSContext.lastError())") }
        guard let rbio = BIO_new(BIO_s_mem()), let wbio = BIO_new(BIO_s_mem()) else {
            SSL_free(ssl)
            throw .tls("BIO_new failed")
        }
        // An empty read BIO means "wait for more", not end of file.
        _ = srtc_BIO_set_mem_eof_return(rbio, -1)
        SSL_set_bio(ssl, rbio, wbio)
        self.ssl = ssl
        readBIO = rbio
        writeBIO = wbio
        switch context.role {
        case .server:
            SSL_set_accept_state(ssl)
        case .client:
            SSL_set_connect_state(ssl)
            let name = context.configuration.serverName ?? host
            if let name, !name.isEmpty {
                let isIP = SocketAddress(ip: name, port: 0) != nil
                // RFC 6066 §3: SNI carries host names only, never literal addresses.
                if !isIP { _ = srtc_SSL_set_tlsext_host_name(ssl, name) }
                if context.configuration.verification.checksHostName {
                    let ok = isIP ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), name) : SSL_set1_host(ssl, name)
                    guard ok == 1 else { throw .tls("cannot set the name to verify: \(name)") }
                }
            }
        }
    }

    deinit { SSL_free(ssl) }

    /// Hands ciphertext received from the peer to OpenSSL.
    func feed(_ ciphertext: UnsafeRawBufferPointer) {
        guard let base = ciphertext.baseAddress, ciphertext.count > 0 else { return }
        _ = BIO_write(readBIO, base, Int32(ciphertext.count))
    }

    /// Advances the handshake; `true` once it is complete.
    func handshake() throws(NetError) -> Bool {
        if handshakeDone { return true }
        ERR_clear_error()
        let rc = SSL_do_handshake(ssl)
        if rc == 1 {
            handshakeDone = true
            return true
        }
        switch SSL_get_error(ssl, rc) {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
            return false
        default:
            let verify = SSL_get_verify_result(ssl)
            if verify != X509_V_OK, let text = X509_verify_cert_error_string(verify) {
                throw .tls("certificate verification failed: \(String(cString: text))")
            }
            throw .tls("handshake failed: \(TLSContext.lastError())")
        }
    }

    /// Decrypts every complete record into `plaintext`; returns `true` when the peer sent close_notify.
    func read(into plaintext: inout ByteBuffer, scratch: UnsafeMutableRawBufferPointer) throws(NetError) -> Bool {
        while true {
            ERR_clear_error()
            let n = SSL_read(ssl, scratch.baseAddress, Int32(min(scratch.count, Int(Int32.max))))
            if n > 0 {
                plaintext.append(UnsafeRawBufferPointer(rebasing: scratch[0..<Int(n)]))
                continue
            }
            switch SSL_get_error(ssl, n) {
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE: return false
            case SSL_ERROR_ZERO_RETURN: return true
            default: throw .tls("read failed: \(TLSContext.lastError())")
            }
        }
    }

    /// Encrypts `bytes`; the records wait in the write BIO until `drain(into:)`.
    func write(_ bytes: UnsafeRawBufferPointer) throws(NetError) {
        var offset = 0
        while offset < bytes.count {
            ERR_clear_error()
            let chunk = min(bytes.count - offset, Int(Int32.max))
            let n = SSL_write(ssl, bytes.baseAddress! + offset, Int32(chunk))
            guard n > 0 else { throw .tls("write failed: \(TLSContext.lastError())") }
            offset += Int(n)
        }
    }

    /// Moves pending ciphertext to `outbound`.
    func drain(into outbound: inout ByteBuffer, scratch: UnsafeMutableRawBufferPointer) {
        while srtc_BIO_ctrl_pending(writeBIO) > 0 {
            let n = BIO_read(writeBIO, scratch.baseAddress, Int32(min(scratch.count, Int(Int32.max))))
            guard n > 0 else { return }
            outbound.append(UnsafeRawBufferPointer(rebasing: scratch[0..<Int(n)]))
        }
    }

    /// Queues a close_notify alert (RFC 8446 §6.1).
    func shutdown() {
        ERR_clear_error()
        _ = SSL_shutdown(ssl)
    }
}

extension TLSConfiguration.Verification {
    /// Whether the certificate must name the host: not when nothing is verified, nor when the
    /// certificate itself is the one trusted.
    var checksHostName: Bool {
        switch self {
        case .system, .trust: return true
        case .none, .pinned: return false
        }
    }
}
