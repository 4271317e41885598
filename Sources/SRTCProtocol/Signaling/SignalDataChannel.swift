/// The data channels of the subscribe transport (docs/protocol.md, "Data channels"): both are
/// negotiated out of band (RFC 8831 §6.5, no DCEP), so each side creates them with these ids
/// and labels and may send as soon as the SCTP association is up.
///
/// Text messages from the server are signaling events, exactly as on the WebSocket; binary
/// messages are user data packets (`RTCWire.DataPacket`), routed by the SFU.
public enum SignalDataChannel: Sendable {
    /// Reliable and ordered: events, and reliable user data.
    public static let reliableID: UInt16 = 0
    public static let reliableLabel = "srtc"
    /// Unordered, no retransmission (`maxRetransmits: 0`): lossy user data.
    public static let lossyID: UInt16 = 1
    public static let lossyLabel = "srtc-lossy"
}

extension ServerEvent {
    /// The events that travel on the subscribe transport's reliable data channel once it is
    /// open, as seed 002 says: quality, speakers and layer switches, and captions (like speakers,
    /// a stream of room events about media). The WebSocket carries them before, and for clients
    /// without data channels.
    public var travelsOnDataChannel: Bool {
        switch self {
        case .qualityReport, .connectionQuality, .activeSpeakers, .layerSwitched, .caption: true
        default: false
        }
    }
}
