import COpenSSL
import Synchronization

/// An OpenSSL `SSL_CTX` built from a `TLSConfiguration`: made once, shared by many connections
/// (OpenSSL allows creating sessions from one context on several threads).
// @unchecked Sendable: the SSL_CTX is configured in init and never changed after; OpenSSL allows SSL_new from one context on several threads.
public final class TLSContext: @unchecked Sendable {
    /// Which side of the handshake sessions from this context take.
    public enum Role: Sendable, Hashable { case client, server }

    let context: OpaquePointer
    /// Client or server.
    public let role: Role
    /// The settings the context was built from.
    public let configuration: TLSConfiguration

    /// - Throws: `NetError.tls` when a file cannot be loaded or the key does not match.
    public init(configuration: TLSConfiguration, role: Role) throws(NetError) {
        self.configuration = configuration
        self.role = role
        ERR_clear_error()
        guard let ctx = SSL_CTX_new(role == .client ? TLS_client_method() : TLS_server_method()) else {
            throw .tls("SSL_CTX_new: \(TLSContext.lastError())")
        }
        context = ctx
        // TLS 1.2 is the oldest version still considered safe (RFC 8996 deprecates 1.0 and 1.1).
        _ = SSL_CTX_ctrl(ctx, SSL_CTRL_SET_MIN_PROTO_VERSION, Int(TLS1_2_VERSION), nil)
        // Partial writes let SSL_write hand over what fits; the memory BIO takes everything anyway.
        _ = srtc_SSL_CTX_set_mode(ctx, Int(SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER))
        switch role {
        case .client:
            switch configuration.verification {
            case .system:
                guard SSL_CTX_set_default_verify_paths(ctx) == 1 else {
                    throw .tls("cannot load the system trust store: \(TLSContext.lastError())")
                }
                SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nil)
            case .trust(let caFile):
                guard SSL_CTX_load_verify_locations(ctx, caFile, nil) == 1 else {
                    throw .tls("cannot load CA file \(caFile): \(TLSContext.lastError())")
                }
                SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nil)
            case .none:
                SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nil)
            case .pinned(let file):
                guard SSL_CTX_load_verify_locations(ctx, file, nil) == 1 else {
                    throw .tls("cannot load pinned certificate \(file): \(TLSContext.lastError())")
                }
                // The server's own certificate is the trust anchor: no chain to a root is needed.
                _ = X509_VERIFY_PARAM_set_flags(SSL_CTX_get0_param(ctx), UInt(X509_V_FLAG_PARTIAL_CHAIN))
                SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nil)
            }
        case .server:
            guard let chain = configuration.certificateChainFile, let key = configuration.privateKeyFile else {
                throw .tls("a server context needs a certificate chain file and a private key file")
            }
            guard SSL_CTX_use_certificate_chain_file(ctx, chain) == 1 else {
                throw .tls("cannot load certificate chain \(chain): \(TLSContext.lastError())")
            }
            guard SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) == 1 else {
                // OpenSSL 3 checks the pair while loading the key: say which files disagree.
                if ERR_GET_REASON(ERR_peek_error()) == X509_R_KEY_VALUES_MISMATCH {
                    ERR_clear_error()
                    throw .tls("private key \(key) does not match the certificate \(chain)")
                }
                throw .tls("cannot load private key \(key): \(TLSContext.lastError())")
            }
            guard SSL_CTX_check_private_key(ctx) == 1 else {
                throw .tls("private key \(key) does not match the certificate \(chain): \(TLSContext.lastError())")
            }
        }
    }

    deinit { SSL_CTX_free(context) }

    private struct CacheKey: Hashable {
        var configuration: TLSConfiguration
        var role: Role
    }
    private static let cache = Mutex<[CacheKey: TLSContext]>([:])

    /// A context for `configuration`, made once per process: loading the system trust store takes
    /// milliseconds, too slow to repeat for every connection.
    /// A pinned certificate file is read again each time: it changes when the server's is renewed.
    public static func shared(for configuration: TLSConfiguration, role: Role) throws(NetError) -> TLSContext {
        if case .pinned = configuration.verification { return try TLSContext(configuration: configuration, role: role) }
        let key = CacheKey(configuration: configuration, role: role)
        if let cached = cache.withLock({ $0[key] }) { return cached }
        let made = try TLSContext(configuration: configuration, role: role)
        return cache.withLock { cache in
            if let cached = cache[key] { return cached }
            cache[key] = made
            return made
        }
    }

    /// The oldest queued OpenSSL error as text (and clears the queue), or "unknown error".
    static func lastError() -> String {
        let code = ERR_get_error()
        ERR_clear_error()
        guard code != 0 else { return "unknown error" }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
