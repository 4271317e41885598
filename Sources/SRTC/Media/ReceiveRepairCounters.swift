import Synchronization

/// What a subscribe transport asked to have resent, and what came twice: the sequence numbers its
/// NACKs listed (RFC 4585 §6.2.1), and the packets SRTP refused as replays (RFC 3711 §3.3.2). The
/// server resends on the same SSRC and sequence number (no RTX), so a replay is a resent copy of a
/// packet that had arrived: a NACK that reordering, not loss, caused (docs/network.md, "NACK
/// waits for reordering"). For tests and the lab.
package struct ReceiveRepairCounts: Sendable, Equatable {
    /// Numbers listed in NACKs sent for audio and for video streams (a number asked again counts again).
    package var nackedAudio = 0
    package var nackedVideo = 0
    /// Packets SRTP refused as replays, by the kind of their stream.
    package var replayedAudio = 0
    package var replayedVideo = 0

    package init() {}
}

/// `ReceiveRepairCounts` kept as atomics: added to on the transport's I/O thread, read by tests.
final class ReceiveRepairCounters: Sendable {
    private let nackedAudio = Atomic<Int>(0)
    private let nackedVideo = Atomic<Int>(0)
    private let replayedAudio = Atomic<Int>(0)
    private let replayedVideo = Atomic<Int>(0)

    func nacked(_ count: Int, video: Bool) {
        if video { nackedVideo.add(count, ordering: .relaxed) } else { nackedAudio.add(count, ordering: .relaxed) }
    }

    func replayed(video: Bool) {
        if video { replayedVideo.add(1, ordering: .relaxed) } else { replayedAudio.add(1, ordering: .relaxed) }
    }

    var counts: ReceiveRepairCounts {
        var counts = ReceiveRepairCounts()
        counts.nackedAudio = nackedAudio.load(ordering: .relaxed)
        counts.nackedVideo = nackedVideo.load(ordering: .relaxed)
        counts.replayedAudio = replayedAudio.load(ordering: .relaxed)
        counts.replayedVideo = replayedVideo.load(ordering: .relaxed)
        return counts
    }
}
