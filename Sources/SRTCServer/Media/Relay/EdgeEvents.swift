import SRTCProtocol
import Synchronization

/// The SFU's events for the router of a channel relayed here (`EdgeChannel`), sent to the
/// clients they concern through `EdgeClients`: the data channels of their subscribe transports,
/// and the quality reports and layer switches of the subscriptions this node serves. Speakers
/// and connection quality are the channel's node's, which sends them over the relayed WebSockets.
/// `post` runs on the SFU's I/O thread: look up, queue, return.
final class EdgeEvents: MediaEventSink {
    /// The relayed channel, as `EdgeService` names it (`app/channel@owner`).
    let channel: String
    let clients: EdgeClients
    /// The publisher's uid of each track received on the uplink, by track id.
    private let publishers = Mutex<[String: String]>([:])

    init(channel: String, clients: EdgeClients) {
        self.channel = channel
        self.clients = clients
    }

    func received(_ track: TrackInfo) { publishers.withLock { $0[track.id] = track.uid } }
    func removed(trackId: String) { _ = publishers.withLock { $0.removeValue(forKey: trackId) } }

    @discardableResult
    func post(_ event: RoomEvent) -> Bool {
        switch event {
        case .dataChannelOpened(let uid, _, let connection) where connection.channel == SignalDataChannel.reliableID:
            clients.setDataChannel(connection, channel: channel, uid: uid)
        case .dataChannelClosed(let uid, _, let closed) where closed == nil || closed == SignalDataChannel.reliableID:
            clients.setDataChannel(nil, channel: channel, uid: uid)
        case .layerSwitched(let subscriber, let trackId, let layer, let previous, let cause):
            guard let publisher = publishers.withLock({ $0[trackId] }) else { break }
            clients.send(.layerSwitched(LayerSwitchedInfo(uid: publisher, trackId: trackId, layer: layer, previous: previous, cause: cause)),
                         channel: channel, uid: subscriber)
        case .qualityReport(let report, _):
            clients.send(.qualityReport(report), channel: channel, uid: report.uid)
        default:
            break
        }
        return true
    }
}
