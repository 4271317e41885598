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
    func relay(join text: String, to owner: NodeInfo, key: ChannelKey, uid: String) async -> Bool {
        // `via` names this node: past the channel's per-node limit the owner has this node serve
        // the session's subscriptions (docs/deploy.md, "Channels larger than a node"). Its
        // subscribe transport, data channels included, is then here: the owner's events that
        // travel on the data channel go there once it is open (`EdgeClients`).
        var path = ServerHTTPDelegate.signalingPath + "?via=" + (cluster?.registry.nodeId ?? "")
        if let token = preverifiedToken { path += "&token=" + token }
        let channel = EdgeService.name(appId: key.appId, channel: key.name, owner: owner.id)
        let client = clientConnection, edgeClients = self.edgeClients
        edgeClients?.attach(client, channel: channel, uid: uid)
        guard let upstream = await WebSocketRelay.open(nodeURL: owner.httpURL, path: path, sending: [text], to: socket,
                                                       maxMessageSize: limits.maxSignalMessageBytes,
                                                       skip: { edgeClients?.divert($0, channel: channel, uid: uid) ?? false },
                                                       ended: { edgeClients?.detach(client, channel: channel, uid: uid) }) else {
            edgeClients?.detach(client, channel: channel, uid: uid)
            return false
        }
        setUpstream(upstream)
        return true
    }
}
