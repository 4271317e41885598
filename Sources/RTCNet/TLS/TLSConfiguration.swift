/// How a TLS connection authenticates its peer and itself.
///
/// Clients verify the server against the system trust store and check the host name by default;
/// tests trust a given CA file or turn verification off. Servers need a certificate chain and key.
public struct TLSConfiguration: Sendable, Hashable {
    /// Where the trust anchors for verifying the peer come from.
    public enum Verification: Sendable, Hashable {
        /// The system store (`SSL_CTX_set_default_verify_paths`) and a host-name check.
        case system
        /// Only the PEM certificates in this file (a private CA or a self-signed server), plus the host-name check.
        case trust(caFile: String)
        /// No verification at all: for tests against throwaway certificates only.
        case none
        /// Exactly the certificates in this file, trusted as they are (no CA needed) and without a
        /// host-name check: for a process on the server's own host that reaches it at 127.0.0.1 and
        /// can read the certificate the server presents (the egress workers). Read at every
        /// connection, so a renewed file is picked up.
        case pinned(certificateFile: String)
    }

    /// How the peer's certificate is checked (client role).
    public var verification: Verification
    /// Name sent in SNI and checked against the certificate; `nil` uses the URL's host.
    public var serverName: String?
    /// PEM certificate chain for the server role (leaf first).
    public var certificateChainFile: String?
    /// PEM private key for the server role.
    public var privateKeyFile: String?

    /// - Parameters:
    ///   - verification: how to verify the peer (clients); servers do not ask for client certificates.
    ///   - serverName: SNI / host-name override for clients.
    ///   - certificateChainFile: PEM chain, for the server role.
    ///   - privateKeyFile: PEM key, for the server role.
    public init(verification: Verification = .system, serverName: String? = nil, certificateChainFile: String? = nil, privateKeyFile: String? = nil) {
        self.verification = verification
        self.serverName = serverName
        self.certificateChainFile = certificateChainFile
        self.privateKeyFile = privateKeyFile
    }

    /// Client defaults: system trust store, host-name check.
    public static let clientDefault = TLSConfiguration()

    /// A client trusting only the certificates in `caFile`.
    public static func trusting(caFile: String) -> TLSConfiguration {
        TLSConfiguration(verification: .trust(caFile: caFile))
    }

    /// A client that accepts any certificate (tests only).
    public static let insecure = TLSConfiguration(verification: .none)

    /// A server presenting `certificateChainFile` with `privateKeyFile`.
    public static func server(certificateChainFile: String, privateKeyFile: String) -> TLSConfiguration {
        TLSConfiguration(verification: .none, certificateChainFile: certificateChainFile, privateKeyFile: privateKeyFile)
    }
}
