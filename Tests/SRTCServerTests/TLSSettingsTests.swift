import Foundation
import Testing
import RTCNet
@testable import SRTCServer

/// `--tls-cert`, `--tls-key` and `--http-redirect-port` (README, "Configuration"; docs/deploy.md,
/// "HTTPS without a proxy"), and the redirect listener's answers.
@Suite struct TLSSettingsTests {
    @Test func theCertificateAndKeyComeFromFlagsVariablesOrTheConfigFile() throws {
        let flags = try ServerConfig.load(arguments: ["--tls-cert", "/c.pem", "--tls-key", "/k.pem", "--http-redirect-port", "80"], environment: [:])
        #expect(flags.http.tls == .server(certificateChainFile: "/c.pem", privateKeyFile: "/k.pem"))
        #expect(flags.http.redirectPort == 80 && flags.http.scheme == "https")
        let variables = try ServerConfig.load(arguments: [], environment: ["SRTC_TLS_CERT": "/c.pem", "SRTC_TLS_KEY": "/k.pem",
                                                                           "SRTC_HTTP_REDIRECT_PORT": "8080"])
        #expect(variables.http.tlsCert == "/c.pem" && variables.http.tlsKey == "/k.pem" && variables.http.redirectPort == 8080)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("srtc-tls-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(#"{"tls_cert": "/f.pem", "tls_key": "/f.key", "http_redirect_port": 80}"#.utf8).write(to: file)
        let fromFile = try ServerConfig.load(arguments: ["--config", file.path], environment: [:])
        #expect(fromFile.http.tlsCert == "/f.pem" && fromFile.http.tlsKey == "/f.key" && fromFile.http.redirectPort == 80)
    }

    @Test func withoutThemTheServerSpeaksPlainHTTP() throws {
        let config = try ServerConfig.load(arguments: [], environment: [:])
        #expect(config.http.tls == nil && config.http.scheme == "http" && config.http.redirectPort == nil)
    }

    @Test func oneWithoutTheOtherIsRefused() {
        #expect(throws: ConfigError.tlsIncomplete) { try ServerConfig.load(arguments: ["--tls-cert", "/c.pem"], environment: [:]) }
        #expect(throws: ConfigError.tlsIncomplete) { try ServerConfig.load(arguments: [], environment: ["SRTC_TLS_KEY": "/k.pem"]) }
    }

    @Test func aRedirectPortNeedsTLS() {
        #expect(throws: ConfigError.redirectWithoutTLS) { try ServerConfig.load(arguments: ["--http-redirect-port", "80"], environment: [:]) }
        #expect(throws: ConfigError.invalidValue("http-redirect-port", "http")) {
            try ServerConfig.load(arguments: ["--http-redirect-port", "http", "--tls-cert", "/c", "--tls-key", "/k"], environment: [:])
        }
    }

    @Test(arguments: [
        ("rtc.example.com", "rtc.example.com"),
        ("rtc.example.com:80", "rtc.example.com"),
        ("10.1.2.3:8080", "10.1.2.3"),
        ("[2001:db8::1]:80", "[2001:db8::1]"),
        ("[::1]", "[::1]"),
    ])
    func theHostKeepsItsNameAndLosesItsPort(host: String, expected: String) {
        #expect(HTTPSRedirectDelegate.hostWithoutPort(host) == expected)
    }

    /// The value is echoed in `Location`: anything but a name or an address is refused.
    @Test(arguments: ["", ":80", "evil.com/path", "a b", "[::1", "[::1]x", "host:80x", "user@host", "[zz::1]"])
    func aHostThatIsNotANameOrAnAddressIsRefused(host: String) {
        #expect(HTTPSRedirectDelegate.hostWithoutPort(host) == nil)
    }

    @Test func everyRequestIsAnswered308WithTheSameTargetOnTheHTTPSPort() {
        let delegate = HTTPSRedirectDelegate(httpsPort: 7443)
        let get = delegate.redirect(HTTPRequest(method: "GET", target: "/meet/?room=1", headers: ["Host": "rtc.example.com"]))
        #expect(get.status == 308 && get.headers["Location"] == "https://rtc.example.com:7443/meet/?room=1")
        let onDefaultPort = HTTPSRedirectDelegate(httpsPort: 443).redirect(HTTPRequest(method: "POST", target: "/x", headers: ["Host": "h:80"]))
        #expect(onDefaultPort.headers["Location"] == "https://h/x")
        #expect(delegate.redirect(HTTPRequest(method: "GET", target: "/")).status == 400)  // no Host
    }
}
