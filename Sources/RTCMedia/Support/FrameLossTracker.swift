// The loss and key-frame bookkeeping the in-order frame assemblers (VP8, H.264) share: a
// sequence gap counts lost packets and means the next decodable frame must be a key frame (later
// delta frames may reference what was lost), so complete delta frames are withheld until one
// arrives and `needsKeyFrame` tells the receiver to ask for it (PLI).

/// Counts losses and discarded frames of one in-order RTP video stream and gates delta frames
/// while a key frame is needed.
struct FrameLossTracker: Sendable {
    private var sequence = InOrderSequence()
    /// Whether the receiver should ask for a key frame (nothing decodable since a gap, or yet).
    private(set) var needsKeyFrame = true
    /// Packets found missing so far.
    private(set) var lostPacketCount = 0
    /// Frames given up (incomplete, oversized, malformed, or withheld while a key frame is needed).
    private(set) var discardedFrameCount = 0

    /// Records a packet's arrival: the packets missing just before it (a loss asks for a key
    /// frame), or `nil` for a repeated or older packet to ignore.
    mutating func arrive(_ sequenceNumber: UInt16) -> Int? {
        guard let lost = sequence.advance(to: sequenceNumber) else { return nil }
        if lost > 0 {
            lostPacketCount += lost
            needsKeyFrame = true
        }
        return lost
    }

    /// The stream can no longer be decoded from what arrived (a malformed payload).
    mutating func needKeyFrame() { needsKeyFrame = true }

    /// A frame in progress was given up.
    mutating func discardFrame() { discardedFrameCount += 1 }

    /// Whether a complete frame may be delivered: a delta frame is discarded while a key frame
    /// is needed; a key frame ends the wait.
    mutating func admit(keyFrame: Bool) -> Bool {
        if keyFrame {
            needsKeyFrame = false
            return true
        }
        guard !needsKeyFrame else {
            discardedFrameCount += 1
            return false
        }
        return true
    }
}
