import CSRTP

/// The DTLS-SRTP protection profiles we negotiate (RFC 5764 §4.1.2, RFC 7714 §14.2).
public enum SRTPProfile: UInt16, Sendable, CaseIterable, CustomStringConvertible {
    /// AES-128-CM with a 80-bit HMAC-SHA1 tag (RFC 3711); accepted.
    case aes128CMSHA1_80 = 0x0001
    /// AEAD AES-128-GCM with a 16-byte tag (RFC 7714); preferred.
    case aeadAES128GCM = 0x0007

    /// The name OpenSSL's `SSL_CTX_set_tlsext_use_srtp` takes.
    public var openSSLName: String {
        switch self {
        case .aes128CMSHA1_80: return "SRTP_AES128_CM_SHA1_80"
        case .aeadAES128GCM: return "SRTP_AEAD_AES_128_GCM"
        }
    }

    /// Master key bytes.
    public var keyLength: Int { 16 }

    /// Master salt bytes: 14 for AES-CM (RFC 3711 §8.2), 12 for AES-GCM (RFC 7714 §12).
    public var saltLength: Int {
        switch self {
        case .aes128CMSHA1_80: return 14
        case .aeadAES128GCM: return 12
        }
    }

    /// Key then salt, as libsrtp takes them.
    public var masterLength: Int { keyLength + saltLength }

    /// Bytes SRTP appends to an RTP packet (the tag).
    public var rtpOverhead: Int {
        switch self {
        case .aes128CMSHA1_80: return 10
        case .aeadAES128GCM: return 16
        }
    }

    /// Bytes SRTCP appends to an RTCP packet (E-flag/index word and the tag).
    public var rtcpOverhead: Int { 4 + rtpOverhead }

    /// Parses an OpenSSL profile name.
    public init?(openSSLName: String) {
        guard let match = Self.allCases.first(where: { $0.openSSLName == openSSLName }) else { return nil }
        self = match
    }

    /// Fills libsrtp crypto policies for this profile (RTP and RTCP use the same transform).
    func apply(to policy: inout srtp_policy_t) {
        switch self {
        case .aes128CMSHA1_80:
            srtp_crypto_policy_set_rtp_default(&policy.rtp) // AES_CM_128_HMAC_SHA1_80
            srtp_crypto_policy_set_rtcp_default(&policy.rtcp)
        case .aeadAES128GCM:
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtp)
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtcp)
        }
    }

    public var description: String { openSSLName }
}
