import RTCNet
import SRTCProtocol

/// Any node answers (docs/deploy.md, "A cluster of nodes"): a client whose channel runs on
/// another node keeps its WebSocket to this node, and this node relays the session, message for
/// message, to the owner's signaling endpoint. The owner runs the session as if the client were
/// connected to it; media goes straight from the client to the owner, whose address is in the SDP.
/// Relaying, not redirecting: clients behind a plain TCP load balancer reach no node by name, a
/// browser's WebSocket cannot follow an HTTP redirect, and no SDK needs to change.
extension SignalingSession {
    /// Opens the relay to `owner` and forwards the client's `join` (its original text); `false`
    /// when the owner cannot be reached.
    func relay(join text: String, to owner: NodeInfo) async -> Bool {
        var url = Self.webSocketBase(of: owner.httpURL) + ServerHTTPDelegate.signalingPath
        if let token = preverifiedToken { url += "?token=" + token }
        let upstream: WebSocket
        do {
            upstream = try await WebSocketClient.connect(url: url, configuration: .init(maxMessageSize: limits.maxSignalMessageBytes), timeout: .seconds(5))
        } catch {
            Log.warn("cluster", "cannot relay to node \(owner.id) at \(owner.httpURL): \(error)")
            return false
        }
        setUpstream(upstream)
        upstream.send(text: text)
        let client = socket
        Task {
            for await message in upstream.messages {
                if case .text(let answer) = message { client.send(text: answer) }
            }
            // The owner ended the session (or died): end the client's too, so its retry loop reconnects.
            client.close(code: .goingAway, reason: "channel node closed")
        }
        return true
    }

    /// `ws://…` or `wss://…` for a node's `http://…` or `https://…` base URL.
    static func webSocketBase(of httpURL: String) -> String {
        if httpURL.hasPrefix("https://") { return "wss://" + httpURL.dropFirst("https://".count) }
        if httpURL.hasPrefix("http://") { return "ws://" + httpURL.dropFirst("http://".count) }
        return httpURL
    }
}
