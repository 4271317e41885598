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
        guard let client = clients.withLock({ $0[Self.key(channel, uid)] }) else { return }
        if event.travelsOnDataChannel, let dataChannel = client.dataChannel {
            dataChannel.send(event: event)
        } else {
            client.connection.send(event: event)
        }
    }

    /// A message of the channel's node for `uid`: `true` when it went on the client's data
    /// channel instead of its WebSocket (an event that travels there, the channel being open).
    func divert(_ text: String, channel: String, uid: String) -> Bool {
        guard let dataChannel = clients.withLock({ $0[Self.key(channel, uid)]?.dataChannel }),
              case .event(let event)? = try? SignalCodec.decodeServerMessage(text), event.travelsOnDataChannel else { return false }
        dataChannel.send(text: text)
        return true
    }
}
