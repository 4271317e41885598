import Foundation

/// A throwaway certificate authority in a temporary directory, made with the `openssl` command
/// line: a P-256 CA and the server certificates it issues, as an operator's private CA (or Let's
/// Encrypt) would hand them over — chain and key in PEM files.
public struct TestCertificateAuthority: Sendable {
    /// One issued certificate: its PEM file, its key's PEM file and the serial number it carries.
    public struct Issued: Sendable {
        public let certificate: String
        public let key: String
        /// Upper-case hex, as `openssl x509 -serial` prints it.
        public let serial: String
    }

    public let directory: String
    /// The CA certificate (the file a client trusts).
    public var certificate: String { directory + "/ca.pem" }
    private var caKey: String { directory + "/ca.key" }

    /// The `openssl` tool, if installed.
    public static let openssl: String? = ["/usr/bin/openssl", "/usr/local/bin/openssl"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Makes the CA (named `name`) in a new temporary directory.
    public init(name: String = "SRTC Test CA") throws {
        directory = try TestDaemon.makeDirectory("srtc-ca")
        try Self.run(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                      "-keyout", caKey, "-out", certificate, "-days", "2", "-subj", "/CN=\(name)",
                      "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"])
    }

    /// Issues a server certificate for `ipAddresses` and `dnsNames` (subject alternative names),
    /// with serial number `serial`, as files `<file>.pem` and `<file>.key`.
    public func issue(file: String, commonName: String, ipAddresses: [String] = ["127.0.0.1"], dnsNames: [String] = [],
                      serial: UInt64) throws -> Issued {
        let key = "\(directory)/\(file).key", request = "\(directory)/\(file).csr", cert = "\(directory)/\(file).pem"
        let names = (ipAddresses.map { "IP:\($0)" } + dnsNames.map { "DNS:\($0)" }).joined(separator: ",")
        let extensions = "\(directory)/\(file).ext"
        try Data("subjectAltName=\(names)\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n".utf8)
            .write(to: URL(fileURLWithPath: extensions))
        try Self.run(["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                      "-keyout", key, "-out", request, "-subj", "/CN=\(commonName)"])
        try Self.run(["x509", "-req", "-in", request, "-CA", certificate, "-CAkey", caKey, "-set_serial", "\(serial)",
                      "-days", "2", "-extfile", extensions, "-out", cert])
        return Issued(certificate: cert, key: key, serial: String(serial, radix: 16, uppercase: true).paddedToEvenLength)
    }

    /// A key that belongs to no certificate (for the mismatch case).
    public func strayKey(file: String) throws -> String {
        let key = "\(directory)/\(file).key"
        try Self.run(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-out", key])
        return key
    }

    /// The serial number of the certificate a TLS server at `host:port` presents to a new
    /// connection, as `openssl s_client` (a client nobody here wrote) sees it.
    public static func servedSerial(host: String, port: UInt16) throws -> String {
        guard let openssl else { throw TestDaemon.Failure(description: "openssl is not installed") }
        let text = try TestDaemon.run("/bin/sh", ["-c", "\(openssl) s_client -connect \(host):\(port) </dev/null 2>/dev/null | \(openssl) x509 -noout -serial"])
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("serial=") }) else {
            throw TestDaemon.Failure(description: "no certificate from \(host):\(port): \(text)")
        }
        return String(line.dropFirst("serial=".count))
    }

    public func remove() { try? FileManager.default.removeItem(atPath: directory) }

    private static func run(_ arguments: [String]) throws {
        guard let openssl else { throw TestDaemon.Failure(description: "openssl is not installed") }
        try TestDaemon.run(openssl, arguments)
    }
}

private extension String {
    /// `openssl x509 -serial` prints whole bytes: `ABC` as `0ABC`.
    var paddedToEvenLength: String { count % 2 == 0 ? self : "0" + self }
}
