/// The TURN relay clients are given in the join response (docs/deploy.md, coturn), read by
/// `TURNCredentialIssuer`.
public struct TURNSettings: Sendable, Equatable {
    /// TURN server URLs handed to clients in the join response (`--turn-urls`, `SRTC_TURN_URLS`,
    /// comma-separated, e.g. `turn:turn.example.com:3478?transport=udp,turns:turn.example.com:443?transport=tcp`).
    public var urls: [String] = []
    /// coturn's `static-auth-secret` (`--turn-secret`, `SRTC_TURN_SECRET`): credentials are made
    /// from it per session and never stored.
    public var secret: String?
    /// Lifetime of those credentials in seconds (`--turn-credential-ttl`, `SRTC_TURN_CREDENTIAL_TTL`).
    public var credentialTTL: Int = 6 * 3600

    public init() {}
}
