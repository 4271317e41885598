#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CSRTP
import CSRTPCrypto
import Synchronization

/// libsrtp's process-wide setup, and which implementation of AES and HMAC-SHA1 it calls.
///
/// On first use `srtp_init` runs once; then, unless the environment variable
/// `SRTC_SRTP_CRYPTO` is `nss` or `builtin`, libsrtp's AES-ICM, AES-GCM and HMAC-SHA1 types are
/// replaced by the OpenSSL EVP ones of `CSRTPCrypto`: Debian's libsrtp2 is built on NSS, whose
/// PK11 calls allocate and lock on every packet. SRTP itself (packet layout, key derivation,
/// replay protection) stays libsrtp's. libsrtp refuses a replacement that fails its known-answer
/// tests; the built-in types then stay, and one line on stderr says so.
public enum SRTPLibrary {
    /// The implementation behind libsrtp's cipher and auth types.
    public enum Crypto: String, Sendable {
        /// libsrtp's own types (NSS on Debian).
        case builtIn = "builtin"
        /// `CSRTPCrypto`'s OpenSSL EVP types.
        case openSSL = "openssl"
    }

    /// Set to `nss` (or `builtin`) to keep libsrtp's own crypto, for comparison.
    public static let environmentVariable = "SRTC_SRTP_CRYPTO"

    /// The crypto sessions created from now on use (a session keeps the one it was created with).
    public static var crypto: Crypto {
        guard isReady else { return .builtIn }
        return state.withLock { $0 }
    }

    /// Switches to the OpenSSL types if they are not in use yet: benchmarks measure the built-in
    /// types first (with `SRTC_SRTP_CRYPTO=nss`), then call this. libsrtp's type table has no
    /// lock, so call it while no other thread is creating sessions.
    /// - Returns: whether the OpenSSL types are now in use.
    @discardableResult
    public static func useOpenSSLCrypto() -> Bool {
        guard isReady else { return false }
        return switchToOpenSSL()
    }

    // MARK: - Internals

    private static let state = Mutex<Crypto>(.builtIn)

    /// `srtp_init` succeeded and the crypto is chosen; evaluated once per process (Swift runs a
    /// global's initializer exactly once, so concurrent first sessions wait for it).
    static let isReady: Bool = {
        guard srtp_init() == srtp_err_status_ok else { return false }
        if wantsOpenSSL { switchToOpenSSL() }
        return true
    }()

    private static var wantsOpenSSL: Bool {
        guard let value = getenv(environmentVariable) else { return true }
        let choice = String(cString: value).lowercased()
        return choice != "nss" && choice != "builtin"
    }

    @discardableResult
    private static func switchToOpenSSL() -> Bool {
        state.withLock { crypto in
            if crypto == .openSSL { return true }
            let status = srtc_srtp_use_openssl_crypto()
            guard status == 0 else {
                let line = "srtc: libsrtp refused the OpenSSL crypto types (srtp_err_status_t \(status)); "
                    + "SRTP uses libsrtp's built-in crypto\n"
                _ = line.withCString { write(STDERR_FILENO, $0, strlen($0)) }
                return false
            }
            crypto = .openSSL
            return true
        }
    }
}
