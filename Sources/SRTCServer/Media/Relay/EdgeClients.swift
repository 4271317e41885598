import SRTCProtocol
import Synchronization

/// The clients this node relays to a channel whose subscriptions it serves (docs/deploy.md,
/// "Channels larger than a node"), by relayed channel (`app/channel@owner`, as `EdgeService`
/// names it) and uid. Their subscribe transport is here, so its data channel is too: the events
/// that travel on it (quality, speakers, layer switches) go there once it is open, as on the
/// channel's node, whether the channel's node sent them over the relayed WebSocket or this
/// node's media raised them (the quality and layer switches of the subscriptions it serves).
final class EdgeClients: Sendable {
    private struct Client {
        let connection: SignalConnection
        var dataChannel: DataChannelConnection?
        /// Its quality reports: the channel's node's (its publishing) and this node's (the
        /// subscriptions served here) make one per interval.
        var quality = QualityReportMerger()
    }
    private let clients = Mutex<[String: Client]>([:])

    private static func key(_ channel: String, _ uid: String) -> String { channel + "\n" + uid }

    /// `connection` relays `uid` of `channel` from its client (a later one of the same uid replaces it).
    func attach(_ connection: SignalConnection, channel: String, uid: String) {
        clients.withLock { $0[Self.key(channel, uid)] = Client(connection: connection) }
    }

    /// The relay of `connection` ended.
    func detach(_ connection: SignalConnection, channel: String, uid: String) {
        clients.withLock { c in
            let key = Self.key(channel, uid)
            if c[key]?.connection === connection { c[key] = nil }
        }
    }

    /// The reliable data channel of `uid`'s subscribe transport here opened (or, `nil`, closed).
    func setDataChannel(_ dataChannel: DataChannelConnection?, channel: String, uid: String) {
        clients.withLock { $0[Self.key(channel, uid)]?.dataChannel = dataChannel }
    }

    /// Sends an event this node raised for `uid`: on its data channel when open and the event
    /// travels there, else on its WebSocket.
    func send(_ event: ServerEvent, channel: String, uid: String) {
        if case .qualityReport(let report) = event { return send(report, from: .serving, channel: channel, uid: uid) }
        guard let client = clients.withLock({ $0[Self.key(channel, uid)] }) else { return }
        deliver(event, to: client)
    }

    private func deliver(_ event: ServerEvent, to client: Client) {
        if event.travelsOnDataChannel, let dataChannel = client.dataChannel {
            dataChannel.send(event: event)
        } else {
            client.connection.send(event: event)
        }
    }

    /// A quality report of one of the two nodes, merged with the other's (`QualityReportMerger`).
    private func send(_ report: QualityReport, from source: QualityReportMerger.Source, channel: String, uid: String) {
        let (reports, client) = clients.withLock { c -> ([QualityReport], Client?) in
            let key = Self.key(channel, uid)
            guard var client = c[key] else { return ([], nil) }
            let reports = client.quality.add(report, from: source)
            c[key] = client
            return (reports, client)
        }
        guard let client else { return }
        for report in reports { deliver(.qualityReport(report), to: client) }
    }

    /// A message of the channel's node for `uid`: `true` when it went on the client's data
    /// channel instead of its WebSocket (an event that travels there, the channel being open),
    /// or is a quality report merged with this node's (sent when both halves are in).
    func divert(_ text: String, channel: String, uid: String) -> Bool {
        // Signaling's encoder sorts keys, so `type` comes last: a cheap test before decoding.
        if text.hasSuffix(#""type":"quality_report"}"#), case .event(.qualityReport(let report))? = try? SignalCodec.decodeServerMessage(text) {
            send(report, from: .channel, channel: channel, uid: uid)
            return true
        }
        guard let dataChannel = clients.withLock({ $0[Self.key(channel, uid)]?.dataChannel }),
              case .event(let event)? = try? SignalCodec.decodeServerMessage(text), event.travelsOnDataChannel else { return false }
        dataChannel.send(text: text)
        return true
    }
}
