import Foundation

/// Channel records in Redis: `srtc:room:<app_id>/<name>`, the JSON of a `RoomRecord`, kept for a
/// day after its last change (a channel quiet for longer cannot be taken over with its sessions:
/// its clients join afresh). Saves go to the Redis client's serial queue in call order, so the
/// last state written is the last state the room had.
struct ClusterRoomRecords: RoomRecordStore {
    let redis: RedisClient
    static let lifetimeSeconds = 86_400

    static func key(_ channel: ChannelKey) -> String { "srtc:room:\(channel.appId)/\(channel.name)" }

    func save(_ key: ChannelKey, _ record: RoomRecord?) {
        guard let record, !record.sessions.isEmpty else {
            redis.send(["DEL", Self.key(key)])
            return
        }
        guard let json = try? JSONEncoder().encode(record) else { return }
        redis.send(["SET", Self.key(key), String(decoding: json, as: UTF8.self), "EX", String(Self.lifetimeSeconds)])
    }

    func load(_ key: ChannelKey) async -> RoomRecord? {
        guard case .string(let json) = try? await redis.run(["GET", Self.key(key)]) else { return nil }
        return try? JSONDecoder().decode(RoomRecord.self, from: Data(json.utf8))
    }
}
