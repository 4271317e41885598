/// What a local audio track's encoder does (`LocalAudioTrack.sendStatistics`): packets, DTX, and
/// the Opus in-band FEC it plans (docs/sdk-srtc.md, "Opus in-band FEC").
public struct AudioSendStatistics: Sendable, Equatable {
    /// Opus packets encoded (DTX silence packets kept back included).
    public var packetsEncoded: Int
    /// Silence packets DTX kept back (not sent).
    public var packetsSkippedByDTX: Int
    /// Whether the encoder embeds in-band FEC (LBRR, RFC 6716 §2.1.7): the publish answer's Opus
    /// format has `useinbandfec=1` (RFC 7587 §6.1), and `SRTCEngine.Configuration.opusInbandFEC` offered it.
    public var inbandFEC: Bool
    /// The loss, in percent (0…25), the encoder plans its FEC for now (`OPUS_SET_PACKET_LOSS_PERC`):
    /// the smoothed fraction lost of the receiver reports on the track's stream, which through
    /// the server are its subscribers' worst loss. 0 until a report shows loss.
    public var expectedPacketLossPercent: Int
    /// The latest receiver report's fraction lost, 0…1 (the largest over the channels the track
    /// is published in); nil before any report.
    public var reportedFractionLost: Double?

    public init(packetsEncoded: Int = 0, packetsSkippedByDTX: Int = 0, inbandFEC: Bool = false, expectedPacketLossPercent: Int = 0,
                reportedFractionLost: Double? = nil) {
        self.packetsEncoded = packetsEncoded
        self.packetsSkippedByDTX = packetsSkippedByDTX
        self.inbandFEC = inbandFEC
        self.expectedPacketLossPercent = expectedPacketLossPercent
        self.reportedFractionLost = reportedFractionLost
    }
}
