import Foundation
import RTCNet
import SRTCProtocol
import Synchronization

/// This node's side of the channel relay (docs/deploy.md, "Channels larger than a node"): the
/// channels other nodes run that this node relays, and the signed route their nodes drive them
/// with, `POST /server/v1/cluster/edge` (docs/server-api.md). The call is signed with the
/// channel's app key, like every call between nodes (`ClusterForwarder.call`), so only the app's
/// own backend or a node of the cluster can make it, and only for that app's channels.
final class EdgeService: Sendable {
    static let path = "/server/v1/cluster/edge"

    private let media: MediaServerSlot
    private let channels = Mutex<[String: EdgeChannel]>([:])

    init(media: MediaServerSlot) {
        self.media = media
    }

    /// Channels relayed now (for tests and metrics).
    var count: Int { channels.withLock { $0.count } }

    func register(in builder: inout APIRouter.Builder) {
        builder.add("POST", Self.path) { [self] context in
            guard let app = context.app else { return APIRouter.error(.internalError, "unsigned relay route", now: context.now) }
            let call: EdgeCall
            switch JSONBody.decode(EdgeCall.self, from: context.request.body, now: context.now) {
            case .success(let c): call = c
            case .failure(let e): return e.response
            }
            guard Identifier.isValid(call.channel), Identifier.isValid(call.owner) else {
                return APIRouter.error(.invalidParameter, "invalid channel or owner", now: context.now)
            }
            let name = "\(app.appId)/\(call.channel)@\(call.owner)"
            guard let channel = channel(name, create: call.op == .open) else {
                if call.op == .close || call.op == .leave { return .json(200, JSONBody.encode(EdgeAnswer())) }
                return APIRouter.error(.notFound, "channel \(call.channel) of node \(call.owner) is not relayed here", now: context.now)
            }
            do throws(SignalError) {
                let answer = try await channel.perform(call)
                if call.op == .close { _ = channels.withLock { $0.removeValue(forKey: name) } }
                return .json(200, JSONBody.encode(answer))
            } catch {
                if call.op == .open { await drop(name, channel) }
                return APIRouter.error(error.errorCode ?? .internalError, error.message, now: context.now)
            }
        }
    }

    private func channel(_ name: String, create: Bool) -> EdgeChannel? {
        guard let server = media.current else { return nil }
        return channels.withLock { c in
            if let existing = c[name] { return existing }
            guard create else { return nil }
            let channel = EdgeChannel(server: server, name: name)
            c[name] = channel
            return channel
        }
    }

    private func drop(_ name: String, _ channel: EdgeChannel) async {
        channels.withLock { c in if c[name] === channel { c[name] = nil } }
        await channel.close()
    }

    /// Closes every relayed channel (shutdown).
    func closeAll() async {
        let all = channels.withLock { c in defer { c = [:] }; return Array(c.values) }
        for channel in all { await channel.close() }
    }
}
