/// Why RTCP bytes could not be read (RFC 3550 §6, RFC 4585 §6, RFC 5104 §4.3,
/// draft-alvestrand-rmcat-remb, draft-holmer-rmcat-transport-wide-cc-extensions).
public enum RTCPError: Error, Sendable, Equatable {
    /// Fewer bytes than the common header or than the packet type's fixed fields.
    case packetTooShort
    /// The version field is not 2.
    case unsupportedVersion(UInt8)
    /// The header's length field runs past the end of the bytes.
    case lengthOverrun
    /// A single-packet parse was given more bytes than the header's length field covers.
    case trailingBytes
    /// The P bit is set but the padding count (the last byte) is 0.
    case paddingLengthZero
    /// The padding count is larger than the packet's body.
    case paddingOverrun
    /// The packet type or feedback format is not the one being parsed.
    case wrongPacketType(packetType: UInt8, format: UInt8)
    /// The report count (SR/RR) says more report blocks than the packet holds.
    case reportCountOverrun
    /// The source count (SDES) says more chunks than the packet holds.
    case sdesChunkOverrun
    /// An SDES item's length, or the chunk's terminating null, runs past the packet.
    case sdesItemOverrun
    /// The source count (BYE) says more SSRCs than the packet holds.
    case goodbyeSourceCountOverrun
    /// The BYE reason's length runs past the packet.
    case goodbyeReasonOverrun
    /// A generic NACK has no FCI entry, or its FCI is not whole 4-byte entries.
    case nackShortFCI
    /// A FIR has no FCI entry, or its FCI is not whole 8-byte entries.
    case firShortFCI
    /// An application-layer feedback packet does not carry the "REMB" identifier.
    case rembMissingIdentifier
    /// The REMB SSRC count says more SSRCs than the packet holds.
    case rembSSRCCountOverrun
    /// Transport-cc status chunks end before the packet status count is reached.
    case transportCCStatusOverrun
    /// Transport-cc receive deltas run past the packet.
    case transportCCDeltaOverrun
    /// A receive delta does not fit the 16-bit field (builder only; split the feedback).
    case transportCCDeltaOutOfRange
    /// More than 65 535 packets in one transport-cc feedback (builder only).
    case transportCCTooManyPackets
}
