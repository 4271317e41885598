import COpenSSL

extension TLSContext {
    /// What a server context presents, in words an operator checks after a renewal.
    public struct CertificateSummary: Sendable, Hashable, CustomStringConvertible {
        /// The leaf's subject, OpenSSL's one-line form (`/CN=rtc.example.com`).
        public var subject: String
        /// The leaf's serial number in upper-case hex, as `openssl x509 -serial` prints it.
        public var serial: String
        /// The leaf's expiry, as OpenSSL prints it (`Mar  6 08:00:00 2027 GMT`).
        public var notAfter: String

        public var description: String { "subject \(subject), serial \(serial), expires \(notAfter)" }
    }

    /// The leaf certificate a server context presents, or nil for a client context.
    public var certificateSummary: CertificateSummary? {
        guard let leaf = SSL_CTX_get0_certificate(context) else { return nil }
        var name = [CChar](repeating: 0, count: 512)
        let subject = X509_NAME_oneline(X509_get_subject_name(leaf), &name, Int32(name.count)).map { String(cString: $0) } ?? ""
        let serial = Self.bioText { bio in _ = i2a_ASN1_INTEGER(bio, X509_get0_serialNumber(leaf)) }
        let notAfter = Self.bioText { bio in _ = ASN1_TIME_print(bio, X509_get0_notAfter(leaf)) }
        return CertificateSummary(subject: subject, serial: serial, notAfter: notAfter)
    }

    /// What `write` prints into a memory BIO: OpenSSL formats serials and times only onto BIOs.
    private static func bioText(_ write: (OpaquePointer) -> Void) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { return "" }
        defer { BIO_free(bio) }
        write(bio)
        var data: UnsafeMutablePointer<CChar>?
        let count = srtc_BIO_get_mem_data(bio, &data)
        guard let data, count > 0 else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: data, count: count), as: UTF8.self)
    }
}
