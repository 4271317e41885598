import Foundation
import RTCCrypto
import Synchronization

/// An application: the owner of channels, identified by `app_id` and authenticated by `app_key`.
public struct App: Sendable, Equatable {
    public let appId: String
    /// Secret: used to check request signatures and sign tokens; never logged or returned by an API.
    public let appKey: String
    public let name: String
}

/// Apps, stored in SQLite and cached in memory so signature checks never touch the database.
public final class AppStore: Sendable {
    private let database: any Database
    private let cache: Mutex<[String: App]>

    public init(database: any Database) throws(DatabaseError) {
        self.database = database
        cache = Mutex(try Self.load(from: database))
    }

    private static func load(from database: any Database) throws(DatabaseError) -> [String: App] {
        var apps: [String: App] = [:]
        for row in try database.query("SELECT app_id, app_key, name FROM apps") {
            guard let id = row[0].string, let key = row[1].string else { continue }
            apps[id] = App(appId: id, appKey: key, name: row[2].string ?? "")
        }
        return apps
    }

    private static func fresh(name: String) -> App {
        App(appId: "app_" + SecureRandom.string(count: 12, alphabet: "abcdefghijklmnopqrstuvwxyz0123456789"),
            appKey: SecureRandom.string(count: 40), name: name)
    }

    /// The app with this id, or `nil`.
    public func app(id: String) -> App? {
        cache.withLock { $0[id] }
    }

    /// Every app, sorted by id.
    public var all: [App] {
        cache.withLock { Array($0.values) }.sorted { $0.appId < $1.appId }
    }

    /// Creates or replaces an app's credentials.
    public func upsert(appId: String, appKey: String, name: String = "") throws(DatabaseError) {
        try database.query(
            "INSERT INTO apps (app_id, app_key, name, created_at) VALUES (?, ?, ?, ?) ON CONFLICT(app_id) DO UPDATE SET app_key = excluded.app_key",
            [.text(appId), .text(appKey), .text(name), .integer(Int64(Date().timeIntervalSince1970))])
        cache.withLock { $0[appId] = App(appId: appId, appKey: appKey, name: name) }
    }

    /// Creates an app with fresh random credentials if the database has none, and returns it;
    /// `nil` when an app exists. Nodes started together on a new database make one app between
    /// them: the check and the insert hold the schema lock (`Database.exclusively`), and the apps
    /// another node made are read into this cache.
    public func createFirstIfNone(name: String = "default") throws(DatabaseError) -> App? {
        let app = Self.fresh(name: name)
        let created = try database.exclusively { tx throws(DatabaseError) -> Bool in
            guard try tx.query("SELECT COUNT(*) FROM apps").first?.first?.int == 0 else { return false }
            try tx.query("INSERT INTO apps (app_id, app_key, name, created_at) VALUES (?, ?, ?, ?)",
                         [.text(app.appId), .text(app.appKey), .text(name), .integer(Int64(Date().timeIntervalSince1970))])
            return true
        }
        try reload()
        return created ? app : nil
    }

    /// Reads every app from the database again.
    public func reload() throws(DatabaseError) {
        let apps = try Self.load(from: database)
        cache.withLock { $0 = apps }
    }

    /// Creates an app with fresh random credentials.
    public func create(name: String = "default") throws(DatabaseError) -> App {
        let app = Self.fresh(name: name)
        try upsert(appId: app.appId, appKey: app.appKey, name: name)
        return app
    }
}
