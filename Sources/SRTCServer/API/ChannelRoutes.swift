import Foundation
import RTCNet
import RTCWire
import SRTCProtocol

/// The signed channel routes of docs/server-api.md: list, info, users, kick, close, message, data, update.
/// All are `POST` with a JSON body, scoped to the calling app's channels.
enum ChannelRoutes {
    struct ChannelRef: Decodable { var channel: String }
    struct KickRequest: Decodable { var channel: String; var uid: String; var reason: String? }
    struct MessageRequest: Decodable { var channel: String; var to: [String]?; var data: String }
    struct DataRequest: Decodable { var channel: String; var to: [String]?; var data: String; var topic: String?; var reliable: Bool? }
    struct UpdateRequest: Decodable { var channel: String; var metadata: String? }
    struct ChannelList: Encodable { var channels: [ChannelInfo] }
    struct UserList: Encodable { var channel: String; var users: [UserInfo] }
    struct Delivered: Encodable { var delivered: Int }
    struct Empty: Encodable {}

    struct ChannelListAnswer: Decodable { var channels: [ChannelInfo] }

    /// - Parameter forwarder: on a cluster node, `list` adds every other node's channels.
    static func register(in builder: inout APIRouter.Builder, manager: ChannelManager, limits: ChannelLimits, forwarder: ClusterForwarder? = nil) {
        builder.add("POST", "/server/v1/channel/list") { context in
            guard let app = context.app else { return unsigned(context) }
            var infos: [ChannelInfo] = []
            for room in manager.rooms(of: app.appId) where await !room.closed { infos.append(await room.info) }
            for answer in await forwarder?.gather(context) ?? [] {
                infos += (try? JSONDecoder().decode(ChannelListAnswer.self, from: Data(answer.body)))?.channels ?? []
            }
            return .json(200, JSONBody.encode(ChannelList(channels: infos.sorted { $0.channel < $1.channel })))
        }
        builder.add("POST", "/server/v1/channel/info", channel: channelOfBody) { context in
            await withRoom(context, ChannelRef.self, manager, \.channel) { room, _ in .json(200, JSONBody.encode(await room.info)) }
        }
        builder.add("POST", "/server/v1/channel/users", channel: channelOfBody) { context in
            await withRoom(context, ChannelRef.self, manager, \.channel) { room, body in
                .json(200, JSONBody.encode(UserList(channel: body.channel, users: await room.users)))
            }
        }
        builder.add("POST", "/server/v1/channel/kick", channel: channelOfBody) { context in
            await withRoom(context, KickRequest.self, manager, \.channel) { room, body in
                guard Identifier.isValid(body.uid) else { return APIRouter.error(.invalidParameter, "invalid uid", now: context.now) }
                guard (body.reason?.count ?? 0) <= 256 else { return APIRouter.error(.invalidParameter, "reason is at most 256 characters", now: context.now) }
                guard await room.kick(uid: body.uid, message: body.reason) else {
                    return APIRouter.error(.notFound, "user \(body.uid) is not in channel \(body.channel)", now: context.now)
                }
                return .json(200, JSONBody.encode(Empty()))
            }
        }
        builder.add("POST", "/server/v1/channel/close", channel: channelOfBody) { context in
            await withRoom(context, ChannelRef.self, manager, \.channel) { room, _ in
                await room.close(reason: .channelClosed)
                return .json(200, JSONBody.encode(Empty()))
            }
        }
        builder.add("POST", "/server/v1/channel/message", channel: channelOfBody) { context in
            await withRoom(context, MessageRequest.self, manager, \.channel) { room, body in
                guard body.data.utf8.count <= limits.maxCustomMessageBytes else {
                    return APIRouter.error(.payloadTooLarge, "data exceeds \(limits.maxCustomMessageBytes) bytes", now: context.now)
                }
                let message = CustomMessage(from: nil, to: body.to?.isEmpty == true ? nil : body.to, data: body.data, timestamp: unixMilliseconds())
                return .json(200, JSONBody.encode(Delivered(delivered: await room.deliver(message))))
            }
        }
        builder.add("POST", "/server/v1/channel/data", channel: channelOfBody) { context in
            await withRoom(context, DataRequest.self, manager, \.channel) { room, body in
                guard let payload = Data(base64Encoded: body.data) else {
                    return APIRouter.error(.invalidParameter, "data is not base64", now: context.now)
                }
                guard (body.topic?.utf8.count ?? 0) <= 255 else {
                    return APIRouter.error(.invalidParameter, "topic exceeds 255 bytes", now: context.now)
                }
                // The delivery header: kind, sender length, topic length and topic (docs/protocol.md, "Data messages").
                guard payload.count + 3 + (body.topic?.utf8.count ?? 0) <= DataPacket.maxSize else {
                    return APIRouter.error(.payloadTooLarge, "data packet exceeds \(DataPacket.maxSize) bytes", now: context.now)
                }
                switch await room.deliverData(Array(payload), topic: body.topic, reliable: body.reliable ?? true, to: Set(body.to ?? [])) {
                case .success(let count): return .json(200, JSONBody.encode(Delivered(delivered: count)))
                case .failure(let error): return APIRouter.error(error.errorCode ?? .invalidParameter, error.message, now: context.now)
                }
            }
        }
        builder.add("POST", "/server/v1/channel/update", channel: channelOfBody) { context in
            await withRoom(context, UpdateRequest.self, manager, \.channel) { room, body in
                guard (body.metadata?.utf8.count ?? 0) <= limits.maxCustomDataBytes else {
                    return APIRouter.error(.payloadTooLarge, "metadata exceeds \(limits.maxCustomDataBytes) bytes", now: context.now)
                }
                await room.setMetadata(body.metadata)
                return .json(200, JSONBody.encode(await room.info))
            }
        }
    }

    /// Decodes the body, validates the channel name, finds the live room of the calling app.
    private static func withRoom<Body: Decodable>(
        _ context: RouteContext, _ type: Body.Type, _ manager: ChannelManager, _ channel: KeyPath<Body, String>,
        _ handler: (ChannelRoom, Body) async -> HTTPResponse
    ) async -> HTTPResponse {
        guard let app = context.app else { return unsigned(context) }
        let body: Body
        switch JSONBody.decode(Body.self, from: context.request.body, now: context.now) {
        case .success(let b): body = b
        case .failure(let e): return e.response
        }
        let name = body[keyPath: channel]
        guard Identifier.isValid(name) else { return APIRouter.error(.invalidParameter, "invalid channel name", now: context.now) }
        guard let room = manager.existingRoom(ChannelKey(appId: app.appId, name: name)), await !room.closed else {
            return APIRouter.error(.notFound, "channel \(name) is not live", now: context.now)
        }
        return await handler(room, body)
    }

    /// The channel a call names in its body (`channel`), for the calling app.
    static let channelOfBody: APIRouter.ChannelOfRequest = { context in
        guard let app = context.app, let body = try? JSONDecoder().decode(ChannelRef.self, from: Data(context.request.body)),
              Identifier.isValid(body.channel) else { return nil }
        return ChannelKey(appId: app.appId, name: body.channel)
    }

    private static func unsigned(_ context: RouteContext) -> HTTPResponse {
        APIRouter.error(.internalError, "unsigned channel route", now: context.now)
    }
}
