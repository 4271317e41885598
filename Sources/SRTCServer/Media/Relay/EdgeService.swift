import Foundation
import RTCNet
import SRTCProtocol
import Synchronization

/// This node's side of the channel relay (docs/deploy.md, "Channels larger than a node"): the
/// channels other nodes run that this node relays, and the signed route their nodes drive them
/// with, `POST /server/v1/cluster/edge` (docs/server-api.md). The call is signed with the
/// channel's app key, like every call between nodes (`ClusterForwarder.call`), so only the app's
/// own backend or a node of the cluster can make it, and only for that app's channels. The
/// uplink's candidates must be addresses the channel's node registered (`NodeInfo.mediaAddresses`):
/// the app's key cannot point this node's ICE checks and DTLS at any other address.
final class EdgeService: Sendable {
    static let path = "/server/v1/cluster/edge"

    private let media: MediaServerSlot
    /// The cluster's nodes; `nil` on a single node, which relays nothing.
    private let registry: NodeRegistry?
    private let channels = Mutex<[String: EdgeChannel]>([:])
    /// The clients this node relays, for the channels it relays.
    let clients = EdgeClients()
    /// The loop that closes the relays of nodes gone from the cluster (`closeOrphans`).
    private let sweeper = Mutex<Task<Void, Never>?>(nil)

    init(media: MediaServerSlot, registry: NodeRegistry?) {
        self.media = media
        self.registry = registry
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
            if call.op == .open, let refusal = await uplinkRefusal(call) { return APIRouter.error(refusal.code, refusal.message, now: context.now) }
            let name = Self.name(appId: app.appId, channel: call.channel, owner: call.owner)
            guard let channel = channel(name, owner: call.owner, create: call.op == .open) else {
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

    /// Why an `open` may not connect where it says: this node is not in a cluster, the owner is
    /// not a live node, or a candidate is not one of the owner's registered media addresses.
    private func uplinkRefusal(_ call: EdgeCall) async -> (code: APIErrorCode, message: String)? {
        guard let registry else { return (.wrongState, "this node is not part of a cluster") }
        guard call.owner != registry.nodeId, let owner = await registry.node(id: call.owner) else {
            return (.notFound, "node \(call.owner) is not a live node of the cluster")
        }
        let registered = Set(owner.mediaAddresses)
        if let stray = call.uplink?.candidates.first(where: { !registered.contains($0) }) {
            return (.permissionDenied, "candidate \(stray.prefix(64)) is not a media address node \(call.owner) registered")
        }
        return nil
    }

    /// How a relayed channel is named here: a later owner of the same channel gets a relay of its own.
    static func name(appId: String, channel: String, owner: String) -> String { "\(appId)/\(channel)@\(owner)" }

    private func channel(_ name: String, owner: String, create: Bool) -> EdgeChannel? {
        guard let server = media.current else { return nil }
        return channels.withLock { c in
            if let existing = c[name] { return existing }
            guard create else { return nil }
            let channel = EdgeChannel(server: server, name: name, owner: owner, clients: clients)
            c[name] = channel
            return channel
        }
    }

    private func drop(_ name: String, _ channel: EdgeChannel) async {
        channels.withLock { c in if c[name] === channel { c[name] = nil } }
        await channel.close()
    }

    /// Closes the relays whose channel's node is no longer a live node of the cluster: a node
    /// that crashed never sends `close`, and each of its relays kept a router, an uplink and the
    /// subscribe side of every session it served until this node stopped. Nothing closes when
    /// the registry cannot be read. Returns how many closed.
    @discardableResult
    func closeOrphans() async -> Int {
        guard let registry else { return 0 }
        let relayed = channels.withLock { Array($0) }
        guard !relayed.isEmpty, let live = try? await registry.liveNodes() else { return 0 }
        let ids = Set(live.map(\.id))
        var closed = 0
        for (name, channel) in relayed where !ids.contains(channel.owner) {
            Log.info("cluster", "closing the relay of \(name): node \(channel.owner) left the cluster")
            await drop(name, channel)
            closed += 1
        }
        return closed
    }

    /// Runs `closeOrphans` every `interval` (a registry heartbeat) until `closeAll`.
    func startSweeping(every interval: Duration) {
        guard registry != nil else { return }
        let task = Task { [weak self] in
            while !Task.isCancelled {
                try? await TimerQueue.shared.sleep(for: interval)
                guard !Task.isCancelled, let self else { return }
                await self.closeOrphans()
            }
        }
        sweeper.withLock { $0?.cancel(); $0 = task }
    }

    /// Closes every relayed channel (shutdown).
    func closeAll() async {
        sweeper.withLock { $0?.cancel(); $0 = nil }
        let all = channels.withLock { c in defer { c = [:] }; return Array(c.values) }
        for channel in all { await channel.close() }
    }
}
