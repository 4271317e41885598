import Foundation
import RTCNet
import SRTCProtocol

/// The server's parts, wired once: storage, apps, auth, metrics and the API router.
/// `srtc-server` builds one from its configuration; tests build one on loopback with free ports.
public final class ServerApp: Sendable {
    public let config: ServerConfig
    public let database: Database
    public let apps: AppStore
    public let metrics: Metrics
    public let router: APIRouter
    /// The app created at this start, if the database had none (its key is printed once).
    public let createdApp: App?

    /// Opens the data directory and database, applies migrations and makes sure an app exists.
    public init(config: ServerConfig, clock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }) throws {
        self.config = config
        let databasePath: String
        if config.dataDir == ":memory:" {
            databasePath = ":memory:"
        } else {
            try FileManager.default.createDirectory(atPath: config.dataDir, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            databasePath = (config.dataDir as NSString).appendingPathComponent("srtc.sqlite3")
        }
        database = try Database(path: databasePath)
        try Migrations.server.apply(to: database)
        apps = try AppStore(database: database)
        if let id = config.appId, let key = config.appKey {
            try apps.upsert(appId: id, appKey: key, name: "configured")
            createdApp = nil
        } else if apps.all.isEmpty {
            createdApp = try apps.create()
        } else {
            createdApp = nil
        }
        metrics = Metrics()
        let authenticator = RequestAuthenticator(apps: apps, nonces: NonceCache(capacity: config.nonceCacheCapacity),
                                                 windowSeconds: config.signatureWindowSeconds)
        var builder = APIRouter.Builder()
        let metrics = self.metrics
        builder.add("GET", "/healthz") { _ in .json(200, Array(#"{"status":"ok"}"#.utf8)) }
        builder.add("GET", "/metrics") { _ in .text(200, metrics.render(), contentType: "text/plain; version=0.0.4") }
        GrantRoutes.register(in: &builder)
        router = APIRouter(builder, authenticator: authenticator, metrics: metrics, maxBodyBytes: config.maxBodyBytes, clock: clock)
    }
}
