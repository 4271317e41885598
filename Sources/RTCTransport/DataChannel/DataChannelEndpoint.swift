import RTCWire

/// The data channels of one SCTP association: opens channels with DCEP (RFC 8832) or by
/// agreement, answers the peer's opens, frames messages with their PPIDs (RFC 8831 §6.6) and
/// closes channels by resetting their streams (RFC 8831 §6.7).
///
/// Owned by the association's thread, like the association. Stream ids: the DTLS client takes
/// even ids and the DTLS server odd ones (RFC 8832 §6), so both can open at once.
public final class DataChannelEndpoint {
    /// What happened (owner's thread).
    public enum Event: Sendable, Equatable {
        /// The association is up: channels can be opened and used.
        case ready
        /// A channel is open (the peer opened it, our open was acknowledged, or it was negotiated).
        case opened(DataChannelInfo)
        /// A message arrived on channel `id`; `binary` tells a binary from a string message.
        case message(id: UInt16, data: [UInt8], binary: Bool)
        /// A channel closed (either side reset its stream).
        case closed(id: UInt16)
        /// The association ended; every channel is closed.
        case shutDown
    }

    /// Counters for tests and stats.
    public struct Stats: Sendable, Equatable {
        public var messagesReceived = 0, messagesSent = 0
        /// Messages on a stream with no open channel, or DCEP messages that did not parse.
        public var dropped = 0
    }

    public let association: SCTPAssociation
    /// Receives events on the owner's thread. Set before the association connects.
    public var onEvent: (Event) -> Void = { _ in }
    public private(set) var stats = Stats()
    /// The open channels by stream id.
    public private(set) var channels: [UInt16: DataChannelInfo] = [:]

    private let isDTLSClient: Bool
    /// Channels we opened with DCEP and whose ACK has not come yet.
    private var awaitingAck: Set<UInt16> = []
    /// Opens asked for before the association came up.
    private var pending: [DataChannelInfo] = []
    private var nextID: UInt16

    public init(association: SCTPAssociation, isDTLSClient: Bool) {
        self.association = association
        self.isDTLSClient = isDTLSClient
        nextID = isDTLSClient ? 0 : 1
        association.onEvent = { [unowned self] event in handle(event) }
    }

    // MARK: - Public API

    /// Opens a channel; returns its stream id. With `negotiatedID` both sides have agreed on the
    /// channel and no DCEP is sent (RFC 8831 §6.5); otherwise a DATA_CHANNEL_OPEN goes out on a
    /// stream of our parity. Before the association is up, the open waits for it.
    @discardableResult
    public func open(label: String, protocol: String = "", reliability: DataChannelReliability = .reliable,
                     negotiatedID: UInt16? = nil) -> UInt16 {
        let id = negotiatedID ?? allocateID()
        let info = DataChannelInfo(id: id, label: label, protocol: `protocol`, reliability: reliability, negotiated: negotiatedID != nil)
        if association.isConnected { start(info) } else { pending.append(info) }
        return id
    }

    /// Sends one message on channel `id`, with the channel's reliability.
    public func send(_ data: UnsafeRawBufferPointer, on id: UInt16, binary: Bool = true) throws(SCTPError) {
        guard let info = channels[id] ?? (awaitingAck.contains(id) ? opening[id] : nil) else { throw .notConnected }
        let ppid = binary ? (data.isEmpty ? DataChannelPPID.binaryEmpty : DataChannelPPID.binary)
                          : (data.isEmpty ? DataChannelPPID.stringEmpty : DataChannelPPID.string)
        try sendRaw(data, info: info, ppid: ppid)
        stats.messagesSent += 1
    }

    /// `send(_:on:binary:)` for an array.
    public func send(_ data: [UInt8], on id: UInt16, binary: Bool = true) throws(SCTPError) {
        let result: Result<Void, SCTPError> = data.withUnsafeBytes { raw in
            Result { () throws(SCTPError) in try send(raw, on: id, binary: binary) }
        }
        try result.get()
    }

    /// Closes channel `id` by resetting our outgoing stream; the peer resets its own in answer.
    public func close(id: UInt16) {
        guard channels[id] != nil || awaitingAck.contains(id) else { return }
        association.resetStreams([id])
    }

    /// Takes over the opens `previous` had waiting for its association, which will never come up
    /// (the DTLS handshake under it started over), and the negotiated channels it had open (the
    /// peer started a new association, RFC 6347 §4.2.8: both sides agreed on them, RFC 8831 §6.5,
    /// and its new connection opens them again): they start when this one's association does.
    func takeWaitingOpens(from previous: DataChannelEndpoint) {
        pending += previous.pending + previous.channels.values.filter(\.negotiated).sorted { $0.id < $1.id }
        previous.pending = []
        nextID = previous.nextID
    }

    // MARK: - Internals

    /// Parameters of our own DCEP opens until their ACK (messages may be sent meanwhile, RFC 8832 §6).
    private var opening: [UInt16: DataChannelInfo] = [:]

    private func allocateID() -> UInt16 {
        while channels[nextID] != nil || opening[nextID] != nil || pending.contains(where: { $0.id == nextID }) {
            nextID &+= 2
        }
        let id = nextID
        nextID &+= 2
        return id
    }

    private func start(_ info: DataChannelInfo) {
        if info.negotiated {
            channels[info.id] = info
            onEvent(.opened(info))
            return
        }
        let open = DataChannelOpen(reliability: info.reliability, label: info.label, protocol: info.protocol)
        opening[info.id] = info
        awaitingAck.insert(info.id)
        // DCEP messages are ordered and reliable whatever the channel's own reliability (RFC 8832 §6).
        let bytes = DataChannelMessage.open(open).serialized()
        bytes.withUnsafeBytes { raw in _ = try? association.send(raw, stream: info.id, ppid: DataChannelPPID.dcep) }
    }

    private func sendRaw(_ data: UnsafeRawBufferPointer, info: DataChannelInfo, ppid: UInt32) throws(SCTPError) {
        switch info.reliability.limit {
        case .reliable:
            try association.send(data, stream: info.id, ppid: ppid, ordered: info.reliability.ordered)
        case .maxRetransmits(let count):
            try association.send(data, stream: info.id, ppid: ppid, ordered: info.reliability.ordered, maxRetransmits: count)
        case .maxLifetime(let ms):
            try association.send(data, stream: info.id, ppid: ppid, ordered: info.reliability.ordered, maxLifetime: ms)
        }
    }

    private func handle(_ event: SCTPAssociation.Event) {
        switch event {
        case .connected:
            onEvent(.ready)
            let waiting = pending
            pending = []
            for info in waiting { start(info) }
        case .message(let stream, let ppid, let data):
            receive(data, stream: stream, ppid: ppid)
        case .streamsReset(let streams):
            for id in streams where channels[id] != nil || opening[id] != nil {
                // Answer the peer's reset with ours so the stream can be reused (RFC 8831 §6.7).
                association.resetStreams([id])
                channels[id] = nil
                opening[id] = nil
                awaitingAck.remove(id)
                onEvent(.closed(id: id))
            }
        case .closed:
            channels = [:]
            opening = [:]
            awaitingAck = []
            onEvent(.shutDown)
        }
    }

    private func receive(_ data: [UInt8], stream: UInt16, ppid: UInt32) {
        switch ppid {
        case DataChannelPPID.dcep:
            receiveControl(data, stream: stream)
        case DataChannelPPID.string, DataChannelPPID.binary, DataChannelPPID.stringEmpty, DataChannelPPID.binaryEmpty:
            guard channels[stream] != nil || opening[stream] != nil else { stats.dropped += 1; return }
            let empty = ppid == DataChannelPPID.stringEmpty || ppid == DataChannelPPID.binaryEmpty
            stats.messagesReceived += 1
            onEvent(.message(id: stream, data: empty ? [] : data,
                             binary: ppid == DataChannelPPID.binary || ppid == DataChannelPPID.binaryEmpty))
        default:
            stats.dropped += 1
        }
    }

    private func receiveControl(_ data: [UInt8], stream: UInt16) {
        guard let message = try? DataChannelMessage(parsing: data) else { stats.dropped += 1; return }
        switch message {
        case .open(let open):
            // The peer opens on its own parity; an open on ours, or on a stream in use, is a protocol error.
            guard (stream % 2 == 0) != isDTLSClient, channels[stream] == nil else { stats.dropped += 1; return }
            let info = DataChannelInfo(id: stream, label: open.label, protocol: open.protocol, reliability: open.reliability)
            channels[stream] = info
            DataChannelMessage.ack.serialized().withUnsafeBytes { raw in
                _ = try? association.send(raw, stream: stream, ppid: DataChannelPPID.dcep)
            }
            onEvent(.opened(info))
        case .ack:
            guard awaitingAck.remove(stream) != nil, let info = opening.removeValue(forKey: stream) else { stats.dropped += 1; return }
            channels[stream] = info
            onEvent(.opened(info))
        }
    }
}
