import Foundation
import RTCNet
import SRTCProtocol
import SRTCServer

/// A real server in-process on free loopback ports (HTTP and UDP) with an in-memory database.
public final class TestServer: Sendable {
    public static let appId = "app_test"
    public static let appKey = "key_test_0123456789"
    public let app: ServerApp
    /// The media worker every channel goes to, when the run's workers pinned them (see `init`).
    public let pinnedWorker: Int?

    /// - Parameter modules: parts built on the server to add (the meeting backend).
    public init(grace: Int = 20, webhookURL: String? = nil, modules: [ServerModuleFactory] = [],
                configure: (inout ServerConfig) -> Void = { _ in }) throws {
        var config = ServerConfig()
        config.dataDir = ":memory:"
        config.httpPort = 0
        config.media.udpPort = 0
        config.appId = Self.appId
        config.appKey = Self.appKey
        config.http.threads = 1
        config.webhookURL = webhookURL
        config.limits.reconnectGraceSeconds = grace
        configure(&config)
        // A test that chose its workers keeps them, and placement; the others get the run's.
        let chosenByTest = config.media.workers != 0
        if !chosenByTest {
            config.media.workers = TestMediaWorkers.count
            if let budget = TestMediaWorkers.subscriberBudget { config.media.workerSubscriberBudget = budget }
        }
        app = try ServerApp(config: config, modules: modules)
        try app.start()
        // With several workers (SRTC_TEST_MEDIA_WORKERS), the suites' channels go to the last
        // one: a suite of one channel would otherwise always run on worker 0, as with one worker.
        pinnedWorker = !chosenByTest && TestMediaWorkers.count > 1 ? TestMediaWorkers.count - 1 : nil
        if let pinnedWorker { app.pinChannels(toMediaWorker: pinnedWorker) }
    }

    /// The UDP port of the worker the test's channels run on: the last worker when several were
    /// given by `SRTC_TEST_MEDIA_WORKERS` (see `init`), else the first (and, with one, only) one.
    public var channelUDPPort: UInt16 {
        pinnedWorker.map { app.udpPorts[$0] } ?? app.udpPort
    }

    /// `https://…` and `wss://…` when the configuration turned TLS on.
    public var httpBase: String { "\(app.config.http.scheme)://127.0.0.1:\(app.httpPort)" }
    public var wsURL: String { "\(app.config.http.tls == nil ? "ws" : "wss")://127.0.0.1:\(app.httpPort)/rtc/v1/ws" }

    /// How the test's own calls verify the server: with TLS on, its certificate file as it is.
    public var clientTLS: TLSConfiguration {
        app.config.http.tlsCert.map { TLSConfiguration(verification: .pinned(certificateFile: $0)) } ?? .clientDefault
    }

    /// A token signed with the test app's key; `hidden`: a participant that is no user, as the
    /// server's egress workers are (meeting channels do not gate it).
    /// `serverPublisher`: as the tokens the server mints for its publishing workers (composite,
    /// ingress), which `--video-codecs` does not narrow.
    public func token(uid: String, channel: String, publish: Bool = true, subscribe: Bool = true, publishData: Bool = true,
               lifetime: Int64 = 3600, nbfOffset: Int64 = 0, hidden: Bool = false, serverPublisher: Bool = false) -> String {
        let now = Int64(Date().timeIntervalSince1970)
        return AccessToken.sign(TokenClaims(iss: Self.appId, sub: uid, iat: now, nbf: now + nbfOffset, exp: now + lifetime, jti: UUID().uuidString,
                                            grant: ChannelGrant(channel: channel, publish: publish, subscribe: subscribe, publishData: publishData, hidden: hidden,
                                                                serverPublisher: serverPublisher)),
                                key: Self.appKey)
    }

    /// A signed server-API call; returns status and JSON object.
    public func call(_ path: String, _ body: [String: Any], nonce: String = UUID().uuidString) async throws -> (Int, [String: Any]) {
        let data = Array(try JSONSerialization.data(withJSONObject: body))
        let headers = HTTPHeaders(RequestSignature.headers(appId: Self.appId, appKey: Self.appKey, method: "POST", pathAndQuery: path,
                                                          body: data, timestamp: Int64(Date().timeIntervalSince1970), nonce: nonce))
        let response = try await HTTPClient(configuration: .init(tls: clientTLS)).post(httpBase + path, headers: headers, body: data)
        let object = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] ?? [:]
        return (response.status, object)
    }

    public func stop() async { await app.shutdown() }
}
