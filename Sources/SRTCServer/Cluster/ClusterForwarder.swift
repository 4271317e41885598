import RTCNet
import SRTCProtocol

/// The server API on any node (docs/deploy.md, "The server API on any node"): a signed call on a
/// channel that another node runs is sent on to that node, which answers it as if it had been
/// called directly; `list` asks every live node. The forwarded call is signed afresh with the
/// calling app's key (every node reads the apps from the shared database), with a new nonce, so
/// it passes the owner's ordinary signature and replay checks and no node-to-node secret exists.
/// It carries `srtc-forwarded-by: <node id>` and is always answered where it lands, so two nodes
/// that disagree about an owner for a moment cannot bounce a call between them.
public final class ClusterForwarder: Sendable {
    /// Marks a call another node sent on.
    public static let forwardedHeader = "srtc-forwarded-by"

    let directory: ChannelDirectory
    let apps: AppStore
    private let client = HTTPClient(configuration: .init(connectTimeout: .seconds(3), timeout: .seconds(10)))

    init(directory: ChannelDirectory, apps: AppStore) {
        self.directory = directory
        self.apps = apps
    }

    /// The owner's answer when `channel` runs on another live node; `nil` to answer here (this
    /// node runs it, nobody does, or the call was forwarded already).
    func forward(_ context: RouteContext, channel: ChannelKey) async -> HTTPResponse? {
        guard context.request.headers[Self.forwardedHeader] == nil, let app = context.app else { return nil }
        guard let owner = await directory.liveOwner(of: channel), owner.id != directory.registry.nodeId else { return nil }
        return await send(context, app: app, to: owner)
    }

    /// The same call answered by every other live node (for calls over all channels); empty for
    /// a forwarded call. A node that does not answer is left out.
    func gather(_ context: RouteContext) async -> [HTTPResponse] {
        guard context.request.headers[Self.forwardedHeader] == nil, let app = context.app,
              let nodes = try? await directory.registry.liveNodes() else { return [] }
        var answers: [HTTPResponse] = []
        for node in nodes where node.id != directory.registry.nodeId {
            let answer = await send(context, app: app, to: node)
            if answer.status == 200 { answers.append(answer) }
        }
        return answers
    }

    // MARK: - Internals

    private func send(_ context: RouteContext, app: App, to node: NodeInfo) async -> HTTPResponse {
        let request = context.request
        do {
            let answer = try await call(request.method, request.target, body: request.body, app: app, on: node, now: context.now,
                                        contentType: request.headers["content-type"] ?? "application/json")
            var response = HTTPResponse(status: answer.status, body: answer.body)
            if let type = answer.headers["content-type"] { response.headers.add(name: "Content-Type", value: type) }
            return response
        } catch {
            Log.warn("cluster", "cannot forward \(request.target) to node \(node.id): \(error)")
            return APIRouter.error(.internalError, "the channel's node \(node.id) cannot be reached; retry", now: context.now)
        }
    }

    /// Calls `target` on `node`, signed with `app`'s key and marked as sent by this node: the
    /// forwarded server API calls, and the channel relay's calls on a relaying node (`EdgeRelay`).
    func call(_ method: String = "POST", _ target: String, body: [UInt8], app: App, on node: NodeInfo, now: Int64,
              contentType: String = "application/json") async throws(NetError) -> HTTPResponse {
        var headers = HTTPHeaders(RequestSignature.headers(appId: app.appId, appKey: app.appKey, method: method,
                                                           pathAndQuery: target, body: body, timestamp: now))
        headers.add(name: "Content-Type", value: contentType)
        headers.add(name: Self.forwardedHeader, value: directory.registry.nodeId)
        return try await client.execute(method: method, url: node.httpURL + target, headers: headers, body: body)
    }
}
