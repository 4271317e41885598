/// A ChannelData message (RFC 8656 §12.4): a 16-bit channel number (0x4000–0x4FFF), a 16-bit
/// length, then the application data; over UDP no padding is needed (§12.5). First bytes
/// 64–79, which RFC 7983 §7 sets apart for TURN channels.
public enum TURNChannelData {
    /// Bytes before the application data.
    public static let headerLength = 4
    /// The channel numbers a client may bind (RFC 8656 §12).
    public static let channelRange: ClosedRange<UInt16> = 0x4000...0x4FFF

    /// The channel and the application data of a ChannelData message; `nil` when it is not one
    /// (wrong channel range, or the length runs past the datagram).
    public static func parse(_ bytes: UnsafeRawBufferPointer) -> (channel: UInt16, payload: Range<Int>)? {
        guard bytes.count >= headerLength else { return nil }
        let channel = UInt16(bytes[0]) << 8 | UInt16(bytes[1])
        let length = Int(bytes[2]) << 8 | Int(bytes[3])
        guard channelRange.contains(channel), headerLength + length <= bytes.count else { return nil }
        return (channel, headerLength..<(headerLength + length))
    }

    /// Writes the header for `length` bytes of data on `channel` into the first four bytes of `out`.
    public static func writeHeader(channel: UInt16, length: Int, into out: UnsafeMutableRawBufferPointer) {
        out[0] = UInt8(channel >> 8)
        out[1] = UInt8(channel & 0xFF)
        out[2] = UInt8((length >> 8) & 0xFF)
        out[3] = UInt8(length & 0xFF)
    }
}
