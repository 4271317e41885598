/// Retransmission packets (RFC 4588 §4): a resent packet on a stream of its own, the RTX stream
/// (its own SSRC, paired with the media SSRC by `a=ssrc-group:FID`, RFC 5576 §4.2, and its own
/// sequence numbers), so a receiver tells a resend from an original, and SRTP's replay check
/// (RFC 3711 §3.3.2) never meets the media stream's number twice.
///
/// ```
/// RTX packet = the original's header (timestamp, marker, CSRCs and header extensions kept),
///              with the RTX SSRC, the next RTX sequence number and the RTX payload type
///            + OSN (the original sequence number, 2 octets)
///            + the original payload (its padding left out)
/// ```
/// Both directions work in place or into a caller's buffer: nothing is allocated.
public enum RTXPacket {
    /// The octets RTX adds to the original payload: the original sequence number (§4).
    public static let overhead = 2

    /// Turns the RTP packet in `packet[0 ..< length]` into its RTX packet, in place.
    /// - Returns: the RTX packet's length (the original's, less its padding, plus 2), or nil
    ///   when the packet does not parse or the result would not fit `packet`.
    public static func wrap(_ packet: UnsafeMutableRawBufferPointer, length: Int,
                            ssrc: UInt32, sequenceNumber: UInt16, payloadType: UInt8) -> Int? {
        guard length <= packet.count, let base = packet.baseAddress,
              let view = try? RTPPacketView(UnsafeRawBufferPointer(rebasing: packet[0 ..< length])) else { return nil }
        let header = view.headerLength
        let payloadEnd = length - view.paddingLength
        guard payloadEnd + overhead <= packet.count else { return nil }
        let originalSequence = view.sequenceNumber
        // Payload moved up by two octets to make room for the OSN; the padding is dropped (P cleared).
        if payloadEnd > header { (base + header + overhead).copyMemory(from: base + header, byteCount: payloadEnd - header) }
        base.storeBytes(of: originalSequence.bigEndian, toByteOffset: header, as: UInt16.self)
        packet[0] &= 0xDF
        packet[1] = (packet[1] & 0x80) | (payloadType & 0x7F)
        base.storeBytes(of: sequenceNumber.bigEndian, toByteOffset: 2, as: UInt16.self)
        base.storeBytes(of: ssrc.bigEndian, toByteOffset: 8, as: UInt32.self)
        return payloadEnd + overhead
    }

    /// Writes the original packet an RTX packet carries into `out` (RFC 4588 §4): the RTX header
    /// with the media `ssrc`, the OSN as sequence number and the codec's `payloadType`, then the
    /// payload after the OSN, without padding.
    /// - Returns: the original's length, or nil when `rtx` does not parse, carries no OSN (a
    ///   padding-only packet, §4 allows it for probing) or the result does not fit `out`.
    public static func unwrap(_ rtx: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer,
                              ssrc: UInt32, payloadType: UInt8) -> Int? {
        guard let view = try? RTPPacketView(rtx), view.payload.count >= overhead,
              let source = rtx.baseAddress, let target = out.baseAddress else { return nil }
        let header = view.headerLength
        let body = view.payload.count - overhead
        guard header + body <= out.count else { return nil }
        target.copyMemory(from: source, byteCount: header)
        if body > 0 { (target + header).copyMemory(from: source + header + overhead, byteCount: body) }
        out[0] &= 0xDF
        out[1] = (out[1] & 0x80) | (payloadType & 0x7F)
        target.storeBytes(of: view.payload.loadUnaligned(as: UInt16.self), toByteOffset: 2, as: UInt16.self)
        target.storeBytes(of: ssrc.bigEndian, toByteOffset: 8, as: UInt32.self)
        return header + body
    }
}
