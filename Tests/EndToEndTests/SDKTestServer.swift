import SRTCServer
import SRTCTestSupport

/// The SDK tests use the lead's in-process server (free loopback HTTP and UDP ports, in-memory
/// database) with the URL an app passes to `join(url:token:)`.
typealias SDKTestServer = TestServer

extension TestServer {
    /// The URL an app passes to `join(url:token:)`.
    var url: String { httpBase }
    /// The HTTP port (for a relay in front of it).
    var port: UInt16 { app.httpPort }
}
