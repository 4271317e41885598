import RTCTransport

/// Why a simulcast consumer changed layer.
public enum LayerSwitchCause: String, Hashable, Sendable {
    /// The subscriber asked (`setPreferredLayer`), or the subscription started.
    case requested
    /// The subscriber's bandwidth estimate lowered (or again allowed) the layer.
    case bandwidth
}

/// A simulcast switch that took effect on a key frame.
public struct LayerSwitch: Hashable, Sendable {
    /// The layer now forwarded (its description, e.g. `camera_small`, else its rid).
    public var layer: String
    /// The layer forwarded before; nil for the first layer of a subscription or after a resume.
    public var previous: String?
    public var cause: LayerSwitchCause

    public init(layer: String, previous: String?, cause: LayerSwitchCause) {
        self.layer = layer
        self.previous = previous
        self.cause = cause
    }
}

/// Why the SFU closed an object on its own.
public enum SFUCloseReason: String, Hashable, Sendable {
    /// The producer of a consumer was closed.
    case producerClosed
    /// The transport it lived on was closed.
    case transportClosed
    /// Its router was closed.
    case routerClosed
}

/// Everything the SFU reports to the server, delivered on the I/O thread through `SFUListener`.
public enum SFUEvent: Sendable {
    /// A transport connected, failed or closed.
    case transportStateChanged(TransportID, PeerTransport.State)
    /// A producer ended because its transport or router closed.
    case producerClosed(ProducerID, reason: SFUCloseReason)
    /// A consumer ended because its producer, transport or router closed.
    case consumerClosed(ConsumerID, reason: SFUCloseReason)
    /// A simulcast consumer switched layer.
    case layerSwitched(consumer: ConsumerID, LayerSwitch)
    /// Dynacast: the layers of a simulcast or scalable producer some subscriber needs changed
    /// (descriptions, best first; empty: none). Checked every `Router.neededLayersInterval`.
    case layersNeeded(RouterID, ProducerID, [String])
    /// The router's speakers, loudest first, when their order changed (empty: nobody speaks).
    case activeSpeakers(RouterID, [SpeakerLevel])
    /// One participant's link statistics over the last quality interval.
    case qualityReport(RouterID, ParticipantQualityReport)
    /// A participant's quality level changed (after hysteresis).
    case connectionQualityChanged(RouterID, ParticipantID, QualityLevel, previous: QualityLevel)
    /// A data channel of a transport opened (negotiated, acknowledged, or opened by the peer).
    case dataChannelOpened(TransportID, DataChannelInfo)
    /// A text message arrived on a transport's data channel (binary ones are user data the SFU routes).
    case dataChannelMessage(TransportID, channel: UInt16, data: [UInt8], binary: Bool)
    /// A data channel closed; `nil`: the transport's SCTP association ended (every channel closed).
    case dataChannelClosed(TransportID, channel: UInt16?)
}

/// Receives the SFU's events. Called on the SFU's I/O thread, one at a time: return quickly
/// (hop to another context for real work) and never call the `SFUWorker` synchronously back.
public protocol SFUListener: AnyObject, Sendable {
    func sfuWorker(_ worker: SFUWorker, didEmit event: SFUEvent)
}
