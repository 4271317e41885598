/// SCTP payload protocol identifiers of WebRTC data channels (RFC 8831 §8, RFC 8832 §8.1).
public enum DataChannelPPID {
    /// Data Channel Establishment Protocol messages.
    public static let dcep: UInt32 = 50
    /// A UTF-8 string message.
    public static let string: UInt32 = 51
    /// A binary message.
    public static let binary: UInt32 = 53
    /// An empty string (sent as one ignored byte, RFC 8831 §6.6).
    public static let stringEmpty: UInt32 = 56
    /// An empty binary message (sent as one ignored byte).
    public static let binaryEmpty: UInt32 = 57
}
