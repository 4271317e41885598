import COpenSSLRuntime

/// OpenSSL's process-wide state as our processes set it up (see `COpenSSLRuntime.h`).
public enum OpenSSLRuntime {
    /// `true` when OpenSSL was initialised before `main()` without its exit-time cleanup, so a
    /// process may call `exit()` while other threads still use OpenSSL (DTLS records for usrsctp
    /// timers, signatures on dispatch threads) instead of crashing in OpenSSL's freed locks.
    public static var survivesExitWithThreadsInside: Bool {
        srtc_openssl_runtime_ready() == 1
    }
}
