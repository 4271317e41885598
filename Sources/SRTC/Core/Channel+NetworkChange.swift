import Foundation
import RTCNet
import SRTCProtocol

// A client whose address changes (Wi-Fi ↔ cellular) keeps its call (docs/network.md, "Addresses
// that change"): the ticker looks at the local address toward the server on each path
// (`NetworkPathWatcher`). A moved signaling path is dropped at once and resumed from the new
// address, instead of waiting for its pings to go unanswered; a moved transport gets an ICE
// restart (RFC 8445 §9) over the signaling session, right away or after that resume. The server
// selects the address the new checks come from, and media flows again without a new join.
// A path that only breaks (consent checks unanswered, RFC 7675) is `mediaPathFailed`'s.
extension Channel {
    /// One look at the paths (on `queue`, from the ticker).
    func watchNetworkPaths() {
        let (signal, media, connection) = state.sync { ($0.signal, $0.media, $0.machine.connection) }
        guard connection == .connected || connection == .reconnecting else { return }
        let targets: [(NetworkPathWatcher.Path, SocketAddress?)] = [
            (.signaling, signal?.remoteAddress),
            (.publish, media?.publish.currentTransport?.movableServerAddress),
            (.subscribe, media?.subscribe.currentTransport?.movableServerAddress),
        ]
        // The kernel's route lookups: one per server address (the paths
        // usually lead to one host, the signaling port and the media port).
        var answers: [SocketAddress: SocketAddress?] = [:]
        let looked = targets.map { path, target -> (NetworkPathWatcher.Path, SocketAddress?, SocketAddress?) in
            guard let remote = target?.with(port: 0) else { return (path, nil, nil) }
            if let known = answers[remote] { return (path, remote, known) }
            let local = RouteLookup.sourceAddress(toward: remote)
            answers[remote] = local
            return (path, remote, local)
        }
        let moved = state.sync { s in
            looked.filter { s.paths.observe($0.0, remote: $0.1, local: $0.2) }.map(\.0)
        }
        guard !moved.isEmpty else { return }
        let now = looked.compactMap { $0.2?.ipString }.first ?? "?"
        context.logger.info("the local address toward the server changed (now \(now)): renewing \(moved)")
        if moved.contains(.publish) { media?.pathMoved(.publish) }
        if moved.contains(.subscribe) { media?.pathMoved(.subscribe) }
        if moved.contains(.signaling) {
            step(.signalingPathMoved)
        } else {
            mediaAfterResume()
        }
    }
}
