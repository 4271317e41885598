import RTCNet

/// Any node answers (docs/deploy.md, "How a session finds its channel"): a client's WebSocket
/// stays on the node it reached, and that node copies the session to the node that runs it over
/// a WebSocket of its own. Used for signaling (`/rtc/v1/ws`) and meetings (`/stm/v1/ws`).
public enum WebSocketRelay {
    /// Opens `path` on the node at `nodeURL` (`http(s)://…`), sends `messages`, then copies each
    /// text message the node sends to `client` (except those `skip` returns true for) until the
    /// node's side ends, and then closes `client` (going away) so its retry loop reconnects. The
    /// caller sends the client's later messages to the returned socket; `ended` runs once the
    /// node's side ended. `nil` when the node cannot be reached.
    public static func open(nodeURL: String, path: String, sending messages: [String], to client: WebSocket, maxMessageSize: Int,
                            skip: @escaping @Sendable (String) -> Bool = { _ in false },
                            ended: @escaping @Sendable () -> Void = {}) async -> WebSocket? {
        let upstream: WebSocket
        do {
            upstream = try await WebSocketClient.connect(url: webSocketBase(of: nodeURL) + path,
                                                         configuration: .init(maxMessageSize: maxMessageSize), timeout: .seconds(5))
        } catch {
            Log.warn("cluster", "cannot relay \(path) to \(nodeURL): \(error)")
            return nil
        }
        for message in messages { upstream.send(text: message) }
        Task {
            for await message in upstream.messages {
                if case .text(let answer) = message, !skip(answer) { client.send(text: answer) }
            }
            // The node ended the session (or died): end the client's too.
            ended()
            client.close(code: .goingAway, reason: "channel node closed")
        }
        return upstream
    }

    /// `ws://…` or `wss://…` for a node's `http://…` or `https://…` base URL.
    static func webSocketBase(of httpURL: String) -> String {
        if httpURL.hasPrefix("https://") { return "wss://" + httpURL.dropFirst("https://".count) }
        if httpURL.hasPrefix("http://") { return "ws://" + httpURL.dropFirst("http://".count) }
        return httpURL
    }
}
