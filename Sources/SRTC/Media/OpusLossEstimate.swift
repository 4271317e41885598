/// The loss an Opus encoder plans its in-band FEC for (`OPUS_SET_PACKET_LOSS_PERC`), from the
/// fraction lost of the receiver reports its stream gets (RFC 3550 §6.4.1; through the SFU, the
/// worst loss of the stream's subscribers, docs/network.md "Opus in-band FEC tuned to the loss
/// subscribers see").
///
/// libopus spends LBRR bits (RFC 6716 §2.1.7) in proportion to the loss it is told of and none at
/// 0 %, so the figure should follow the path rather than stay fixed. A report is a 1 s sample
/// of a random process (at 50 packets/s, 10 % loss reads anywhere from about 4 to 16 %), so
/// reports are smoothed: an exponential mean that moves half way to a report above it (loss is
/// planned for within two or three reports) and an eighth of the way to one below (a burst keeps
/// FEC planned for several seconds after, as libwebrtc's Opus encoder smooths over seconds).
/// Clamped to `maximumPercent`: past it LBRR costs more bits than it repairs, and the loss is one
/// for RED and NACK. Not thread-safe: its owner locks it.
struct OpusLossEstimate: Sendable, Equatable {
    /// Weight of a report above the estimate.
    static let riseWeight = 0.5
    /// Weight of a report below it.
    static let fallWeight = 0.125
    /// The largest loss planned for, percent.
    static let maximumPercent = 25

    /// The smoothed fraction lost, 0…1.
    private(set) var fraction = 0.0
    /// The latest report's fraction lost, 0…1 (nil before any).
    private(set) var lastReported: Double?

    /// Takes one report's fraction lost (in 256ths, as the report block carries it).
    mutating func add(fractionLost: UInt8) {
        let sample = Double(fractionLost) / 256
        lastReported = sample
        fraction += (sample - fraction) * (sample > fraction ? Self.riseWeight : Self.fallWeight)
    }

    /// What the encoder plans for, whole percent, 0…`maximumPercent`.
    var percent: Int { min(Self.maximumPercent, Int((fraction * 100).rounded())) }
}
