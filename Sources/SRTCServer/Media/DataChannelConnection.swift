import SFU
import SRTCProtocol

/// One open data channel of a participant's transport on the SFU, as a `SignalConnection`: a
/// room sends signaling events on it like on the WebSocket (docs/protocol.md, "Data channels").
/// Messages go out on the SFU's I/O thread in the order they were sent.
final class DataChannelConnection: SignalConnection {
    let worker: SFUWorker
    let transport: TransportID
    let channel: UInt16

    init(worker: SFUWorker, transport: TransportID, channel: UInt16) {
        self.worker = worker
        self.transport = transport
        self.channel = channel
    }

    func send(text: String) {
        worker.sendData(Array(text.utf8), binary: false, transport: transport, channel: channel)
    }

    /// The channel lives as long as its transport; the room only stops using it.
    func close(code: UInt16, reason: String) {}
}
