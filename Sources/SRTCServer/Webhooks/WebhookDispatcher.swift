import Foundation
import RTCCrypto
import RTCNet
import SRTCProtocol
import Synchronization

/// Sends channel lifecycle events to the customer's backend (docs/server-api.md, "Webhooks"): each
/// event is stored in the database first, then POSTed signed like a server-API request (the four headers,
/// keyed with the app's `app_key`), and retried with exponential backoff until a 2xx answer or the
/// attempt limit. Stored events survive a restart.
///
/// In the same transaction as each event it records which channels and users the receiver was told
/// are live, and which node owns each channel. A server that was killed never sent their
/// `user_left` and `channel_closed`; the next start sends them, with the reason `server_restart`,
/// before anything new happens. In a cluster (the table is shared) a start closes only its own
/// node's channels, then those of nodes gone from the registry (a node with a random id never
/// comes back as itself), never those of a live node.
final class WebhookDispatcher: ChannelEventSink, Sendable {
    /// Delivers one signed POST and returns the HTTP status (throws on network failure).
    typealias Poster = @Sendable (_ url: String, _ headers: [(String, String)], _ body: [UInt8]) async throws -> Int

    struct Event<Data: Encodable>: Encodable {
        var event_id: String
        var event: String
        var app_id: String
        var channel: String
        var sequence: Int64
        var timestamp: Int64
        var data: Data
    }

    struct EventData: Encodable {
        var uid: String?
        var reason: String?
        var track: TrackInfo?
    }

    /// The `reason` of the `user_left` and `channel_closed` events a start sends for what the
    /// previous run left live (it ended without closing them: a crash, `kill -9`, power loss).
    static let serverRestartReason = "server_restart"

    /// Backoff before attempt n+1, in seconds; the last value repeats until `maxAttempts`.
    static let backoffSeconds: [Int64] = [1, 2, 4, 8, 16, 32, 60, 120, 300]
    let maxAttempts: Int

    private let url: String
    let database: any Database
    private let apps: AppStore
    private let post: Poster
    private let sequences = Mutex<[ChannelKey: Int64]>([:])
    private let wakeup = Wakeup()
    /// Attempts answered 2xx, attempts that failed, events given up (for `/metrics`).
    let outcomes = Mutex<(delivered: Int, failed: Int, abandoned: Int)>((0, 0, 0))
    private let loop: Mutex<Task<Void, Never>?> = Mutex(nil)

    /// In a cluster, only the holder of this lease sends (the outbox table is shared).
    private let lease: OutboxLease?
    /// This node's id in `webhook_live_channels.node` ('' on a single node).
    private let node: String

    /// - Parameter registry: in a cluster, the node registry (this node's id, and which nodes live).
    init(url: String, database: any Database, apps: AppStore, maxAttempts: Int = 10, lease: OutboxLease? = nil,
         registry: NodeRegistry? = nil, post: @escaping Poster) {
        self.lease = lease
        self.url = url
        self.database = database
        self.apps = apps
        self.maxAttempts = maxAttempts
        self.post = post
        node = registry?.nodeId ?? ""
        closeWhatThePreviousRunLeftLive(owners: "node = ?", [.text(node)])
        let wakeup = self.wakeup
        let task = Task { [weak self] in
            if let registry { await self?.closeWhatDeadNodesLeftLive(registry) }
            while !Task.isCancelled {
                guard let next = await self?.deliverDue() else { return }
                // Sleep until the next retry is due or a new event arrives; in a cluster at most
                // 1 s, since the other nodes store events this one must send.
                let longest: Double = lease == nil ? 3600 : 1
                await wakeup.wait(seconds: min(longest, next.map { max(0.05, $0) } ?? longest))
            }
        }
        loop.withLock { $0 = task }
    }

    /// Stops the delivery loop (pending events stay stored for the next start).
    func stop() {
        loop.withLock { $0?.cancel() }
        wakeup.signal()
    }

    // MARK: - ChannelEventSink

    func channelCreated(_ key: ChannelKey) { enqueue(key, "channel_created", EventData()) }
    // channel_closed's `reason` is only set by a restart (serverRestartReason).
    func channelClosed(_ key: ChannelKey) {
        enqueue(key, "channel_closed", EventData())
        sequences.withLock { $0[key] = nil }
    }
    func userJoined(_ key: ChannelKey, uid: String) { enqueue(key, "user_joined", EventData(uid: uid)) }
    func userLeft(_ key: ChannelKey, uid: String, reason: DisconnectReason) { enqueue(key, "user_left", EventData(uid: uid, reason: reason.rawValue)) }
    func trackPublished(_ key: ChannelKey, uid: String, track: TrackInfo) { enqueue(key, "track_published", EventData(uid: uid, track: track)) }
    func trackUnpublished(_ key: ChannelKey, uid: String, track: TrackInfo) { enqueue(key, "track_unpublished", EventData(uid: uid, track: track)) }

    // MARK: - Internals

    /// Stores event `name` of channel `key` (the next sequence number) and wakes the delivery loop.
    func enqueue<Data: Encodable>(_ key: ChannelKey, _ name: String, _ data: Data) {
        // A channel this node took over from another (its first event here is not
        // channel_created) continues the sequence the shared outbox holds.
        let known = sequences.withLock { $0[key] != nil }
        let stored = known || name == "channel_created" ? nil : lastStoredSequence(key)
        let sequence = sequences.withLock { s -> Int64 in
            let next = (s[key] ?? stored ?? 0) + 1
            s[key] = next
            return next
        }
        do {
            try database.transaction { tx throws(DatabaseError) in
                try Self.insert(tx, key, name, data, sequence: sequence)
                // Only the channel events (EventData) name a user; the egress events' data does not.
                try recordLiveness(tx, key, name, uid: (data as? EventData)?.uid, sequence: sequence)
            }
        } catch {
            Log.error("webhook", "cannot store \(name) for \(key): \(error)")
            return
        }
        wakeup.signal()
    }

    private static func insert<Data: Encodable>(_ tx: any SQLExecutor, _ key: ChannelKey, _ name: String, _ data: Data,
                               sequence: Int64) throws(DatabaseError) {
        let now = unixMilliseconds()
        let event = Event(event_id: "EV_" + SecureRandom.string(count: 20), event: name, app_id: key.appId, channel: key.name,
                          sequence: sequence, timestamp: now, data: data)
        try tx.query(
            "INSERT INTO webhook_deliveries (event_id, app_id, channel, sequence, event, body, next_attempt_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [.text(event.event_id), .text(key.appId), .text(key.name), .integer(sequence), .text(name),
             .blob(JSONBody.encode(event)), .integer(now), .integer(now)])
    }

    /// Keeps `webhook_live_channels` / `webhook_live_users` equal to what the receiver was told.
    private func recordLiveness(_ tx: any SQLExecutor, _ key: ChannelKey, _ name: String, uid: String?,
                                sequence: Int64) throws(DatabaseError) {
        let channel: [SQLValue] = [.text(key.appId), .text(key.name)]
        switch name {
        case "channel_created":
            try tx.query("INSERT INTO webhook_live_channels (app_id, channel, sequence, node) VALUES (?, ?, ?, ?) " +
                         "ON CONFLICT (app_id, channel) DO UPDATE SET sequence = excluded.sequence, node = excluded.node",
                         channel + [.integer(sequence), .text(node)])
            try tx.query("DELETE FROM webhook_live_users WHERE app_id = ? AND channel = ?", channel)
        case "channel_closed":
            try tx.query("DELETE FROM webhook_live_channels WHERE app_id = ? AND channel = ?", channel)
            try tx.query("DELETE FROM webhook_live_users WHERE app_id = ? AND channel = ?", channel)
        default:
            // The node is set again: a channel handed to this node in a cluster is this node's now,
            // so a later death of the node it came from does not close it.
            try tx.query("UPDATE webhook_live_channels SET sequence = ?, node = ? WHERE app_id = ? AND channel = ?",
                         [.integer(sequence), .text(node)] + channel)
            if name == "user_joined", let uid {
                try tx.query("INSERT INTO webhook_live_users (app_id, channel, uid) VALUES (?, ?, ?) ON CONFLICT DO NOTHING", channel + [.text(uid)])
            } else if name == "user_left", let uid {
                try tx.query("DELETE FROM webhook_live_users WHERE app_id = ? AND channel = ? AND uid = ?", channel + [.text(uid)])
            }
        }
    }

    /// At start, before any room exists: every user and channel of `owners` (a condition on
    /// `webhook_live_channels.node`) the receiver still believes live gets its `user_left` and
    /// `channel_closed` (reason `server_restart`), continuing the channel's sequence, in one
    /// transaction with clearing the record. The rows are taken with `DELETE … RETURNING`, so two
    /// nodes starting at once never close the same channel twice.
    private func closeWhatThePreviousRunLeftLive(owners: String, _ parameters: [SQLValue]) {
        do {
            let closed = try database.transaction { tx throws(DatabaseError) -> Int in
                let channels = try tx.query("DELETE FROM webhook_live_channels WHERE \(owners) RETURNING app_id, channel, sequence", parameters)
                    .compactMap { row -> (appId: String, name: String, sequence: Int64)? in
                        guard let appId = row[0].string, let name = row[1].string, let sequence = row[2].int else { return nil }
                        return (appId, name, sequence)
                    }
                    .sorted { ($0.appId, $0.name) < ($1.appId, $1.name) }
                for (appId, name, start) in channels {
                    let key = ChannelKey(appId: appId, name: name)
                    let users = try tx.query("DELETE FROM webhook_live_users WHERE app_id = ? AND channel = ? RETURNING uid", [.text(appId), .text(name)])
                        .compactMap { $0[0].string }.sorted()
                    var sequence = start
                    for uid in users {
                        sequence += 1
                        try Self.insert(tx, key, "user_left", EventData(uid: uid, reason: Self.serverRestartReason), sequence: sequence)
                    }
                    sequence += 1
                    try Self.insert(tx, key, "channel_closed", EventData(reason: Self.serverRestartReason), sequence: sequence)
                }
                return channels.count
            }
            if closed > 0 {
                Log.warn("webhook", "closed \(closed) channel(s) a previous run left live (reason \(Self.serverRestartReason))")
                wakeup.signal()
            }
        } catch {
            Log.error("webhook", "cannot close the channels a previous run left live: \(error)")
        }
    }

    /// In a cluster, once at start: closes the channels of nodes no longer in the registry (they
    /// died and, with a random id, never restart as themselves). Skipped when Redis cannot be read:
    /// a node missing from an unreadable registry may well be alive.
    private func closeWhatDeadNodesLeftLive(_ registry: NodeRegistry) async {
        guard let live = try? await registry.liveNodes().map(\.id) else { return }
        let keep = Set(live + [node]).sorted()
        closeWhatThePreviousRunLeftLive(owners: "node NOT IN (" + keep.map { _ in "?" }.joined(separator: ", ") + ")", keep.map { .text($0) })
    }

    /// The highest sequence number stored for `key`'s channel, if any.
    private func lastStoredSequence(_ key: ChannelKey) -> Int64? {
        let rows = try? database.query("SELECT MAX(sequence) FROM webhook_deliveries WHERE app_id = ? AND channel = ?",
                                       [.text(key.appId), .text(key.name)])
        return rows?.first?.first?.int
    }

    /// Attempts every due delivery once; returns seconds until the next one is due (`.some(nil)`: none pending).
    private func deliverDue() async -> Double?? {
        if let lease, await !lease.hold() { return .some(nil) }
        let now = unixMilliseconds()
        let due = (try? database.query(
            "SELECT event_id, app_id, body, attempts FROM webhook_deliveries WHERE delivered_at IS NULL AND attempts < ? AND next_attempt_at <= ? ORDER BY created_at, sequence LIMIT 100",
            [.integer(Int64(maxAttempts)), .integer(now)])) ?? []
        for row in due {
            guard let id = row[0].string, let appId = row[1].string, case .blob(let body) = row[2], let attempts = row[3].int else { continue }
            await attempt(id: id, appId: appId, body: body, attempts: Int(attempts))
        }
        let next = try? database.query(
            "SELECT MIN(next_attempt_at) FROM webhook_deliveries WHERE delivered_at IS NULL AND attempts < ?", [.integer(Int64(maxAttempts))])
        guard let at = next?.first?.first?.int else { return .some(nil) }
        return .some(Double(at - unixMilliseconds()) / 1000)
    }

    private func attempt(id: String, appId: String, body: [UInt8], attempts: Int) async {
        guard let app = apps.app(id: appId) else { return }
        let path = Self.pathAndQuery(of: url)
        let headers = RequestSignature.headers(appId: appId, appKey: app.appKey, method: "POST", pathAndQuery: path, body: body,
                                               timestamp: Int64(Date().timeIntervalSince1970))
            + [("Content-Type", "application/json")]
        var status = 0
        do { status = try await post(url, headers, body) } catch { status = 0 }
        let now = unixMilliseconds()
        if (200..<300).contains(status) {
            outcomes.withLock { $0.delivered += 1 }
            _ = try? database.query("UPDATE webhook_deliveries SET delivered_at = ?, attempts = attempts + 1 WHERE event_id = ?", [.integer(now), .text(id)])
        } else {
            let delay = Self.backoffSeconds[min(attempts, Self.backoffSeconds.count - 1)]
            _ = try? database.query("UPDATE webhook_deliveries SET attempts = attempts + 1, next_attempt_at = ? WHERE event_id = ?",
                                    [.integer(now + delay * 1000), .text(id)])
            outcomes.withLock { $0.failed += 1; if attempts + 1 >= maxAttempts { $0.abandoned += 1 } }
            if attempts + 1 >= maxAttempts { Log.warn("webhook", "giving up on event \(id) after \(attempts + 1) attempts (last status \(status))") }
        }
    }

    /// The path and query of an absolute URL (what the signature covers).
    static func pathAndQuery(of url: String) -> String {
        guard let schemeEnd = url.range(of: "://") else { return url }
        let rest = url[schemeEnd.upperBound...]
        guard let slash = rest.firstIndex(of: "/") else { return "/" }
        return String(rest[slash...])
    }
}

/// A one-slot signal with timeout: `wait` returns when `signal` is called or the time passes.
/// The timeout is a `TimerQueue` timer, released when the signal comes first (a cancelled
/// `Task.sleep` would hold its memory until the full hour passed).
final class Wakeup: Sendable {
    private let state = Mutex<(pending: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))
    private let timers = TimerQueue(label: "srtc-webhook-wakeup")

    func signal() {
        let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
            defer { s.waiter = nil }
            if s.waiter == nil { s.pending = true }
            return s.waiter
        }
        waiter?.resume()
    }

    func wait(seconds: Double) async {
        let timer = timers.schedule(after: .milliseconds(Int64(min(seconds, 86_400) * 1000))) { [weak self] in self?.signal() }
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { s -> Bool in
                if s.pending { s.pending = false; return true }
                s.waiter = c
                return false
            }
            if resumeNow { c.resume() }
        }
        timers.cancel(timer)
        state.withLock { $0.pending = false }
    }
}
