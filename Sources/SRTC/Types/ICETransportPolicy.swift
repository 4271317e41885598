/// Which ICE candidates the media transports may use (WebRTC's `RTCIceTransportPolicy`).
public enum ICETransportPolicy: String, Sendable, CaseIterable {
    /// Direct UDP, ICE-TCP and, when the server hands out TURN credentials, the TURN relay.
    case all
    /// Only through the TURN relay of the join response's `ice_servers` (a client that must not
    /// reveal its address, or a network that lets nothing else through).
    case relay
}
