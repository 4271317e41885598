/// The server's open connections, counted in total and per remote IP address, and the admission
/// rule for a new one: under the limits it is admitted; at a limit the longest-idle connection
/// (of that address, for the per-address limit) is shed to make room; with none idle the new one
/// is refused. Idle connections cost the server a descriptor and memory while giving nobody
/// anything, so they go first; a connection in the middle of a request or a WebSocket is never
/// shed. Not thread-safe: the server keeps it behind its lock.
struct ConnectionTable<Connection: AnyObject> {
    /// What to do with a new connection.
    enum Decision: Equatable {
        /// Admit it; `shedding` (an id) is closed to make room.
        case admit(shedding: Int?)
        /// Close it at once.
        case refuse
    }

    private struct Entry {
        let connection: Connection
        let address: SocketAddress?
    }

    let maxConnections: Int
    /// 0: no per-address limit.
    let maxPerAddress: Int
    private var entries: [Int: Entry] = [:]
    private var byAddress: [SocketAddress: Set<Int>] = [:]

    /// - Parameters:
    ///   - maxConnections: open connections in all.
    ///   - maxPerAddress: open connections per IP address; 0 for no limit.
    init(maxConnections: Int, maxPerAddress: Int) {
        self.maxConnections = max(1, maxConnections)
        self.maxPerAddress = max(0, maxPerAddress)
    }

    var count: Int { entries.count }
    var connections: [Connection] { entries.values.map(\.connection) }

    /// Open connections from `address`'s IP.
    func count(from address: SocketAddress) -> Int { byAddress[Self.key(address)]?.count ?? 0 }

    /// Decides on a connection from `address`. `idleSince` gives a connection's idle start
    /// (monotonic ns; 0 while busy or already being shed).
    func decide(from address: SocketAddress?, idleSince: (Connection) -> UInt64) -> Decision {
        if maxPerAddress > 0, let address, let ids = byAddress[Self.key(address)], ids.count >= maxPerAddress {
            return oldestIdle(among: ids, idleSince: idleSince).map { .admit(shedding: $0) } ?? .refuse
        }
        if entries.count >= maxConnections {
            return oldestIdle(among: entries.keys, idleSince: idleSince).map { .admit(shedding: $0) } ?? .refuse
        }
        return .admit(shedding: nil)
    }

    mutating func insert(_ connection: Connection, id: Int, address: SocketAddress?) {
        let key = address.map(Self.key)
        entries[id] = Entry(connection: connection, address: key)
        if let key { byAddress[key, default: []].insert(id) }
    }

    /// Forgets `id` (closed); returns its connection if it was there.
    @discardableResult
    mutating func remove(_ id: Int) -> Connection? {
        guard let entry = entries.removeValue(forKey: id) else { return nil }
        if let key = entry.address {
            byAddress[key]?.remove(id)
            if byAddress[key]?.isEmpty == true { byAddress[key] = nil }
        }
        return entry.connection
    }

    func connection(_ id: Int) -> Connection? { entries[id]?.connection }

    /// The id of the connection idle longest, if any is idle.
    func longestIdle(idleSince: (Connection) -> UInt64) -> Int? { oldestIdle(among: entries.keys, idleSince: idleSince) }

    /// The id of the connection idle longest among `ids`, if any is idle.
    private func oldestIdle<S: Sequence>(among ids: S, idleSince: (Connection) -> UInt64) -> Int? where S.Element == Int {
        var best: (id: Int, since: UInt64)?
        for id in ids {
            guard let entry = entries[id] else { continue }
            let since = idleSince(entry.connection)
            guard since != 0 else { continue }
            if best == nil || since < best!.since { best = (id, since) }
        }
        return best?.id
    }

    /// Connections are counted per IP address, whatever their port.
    private static func key(_ address: SocketAddress) -> SocketAddress { address.with(port: 0) }
}
