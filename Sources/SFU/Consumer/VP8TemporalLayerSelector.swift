import RTCMedia

/// Which frames of one VP8 stream with temporal layers (RFC 7741 §4.2: TID, Y) one subscriber
/// gets: every frame up to a temporal layer. A pure value, tested without sockets;
/// `SimulcastConsumer` feeds it each packet's descriptor (Chromium sends every VP8 simulcast
/// encoding as L1T3) and sends what it keeps, with picture ids made continuous again by
/// `VP8PictureIDRewriter`.
///
/// Rules:
/// - A packet is kept when its TID ≤ the current temporal layer. A packet without a TID (no T
///   bit) is kept: the stream has no temporal layers.
/// - Lower: at a frame boundary (a new RTP timestamp), so the frame being sent is finished.
/// - Higher: one layer at a time, at the first packet of a frame of the next layer up with the
///   layer sync bit Y (it refers only to TL0, which was forwarded: frames of that layer after it
///   refer to it and to the layers below), or at a key frame (every layer at once). Not at a TL0
///   frame: a later TL1 frame may still refer to the TL1 frame before it, which was dropped.
///   Chromium's L1T3 pattern sets Y on every TL1 frame and on the TL2 frame after each TL0.
struct VP8TemporalLayerSelector: Sendable, Equatable {
    /// VP8's TID has 2 bits.
    static let all = 3

    /// The highest temporal layer wanted (`all`: every layer).
    var target = Self.all
    /// The highest temporal layer being forwarded.
    private(set) var current = Self.all
    private var frameTimestamp: UInt32 = 0
    private var inFrame = false

    init(target: Int = Self.all) {
        self.target = target
        current = target
    }

    /// Decides for one packet: true to forward it.
    /// - Parameters:
    ///   - descriptor: the packet's VP8 payload descriptor.
    ///   - isKeyFrame: the packet starts a key frame.
    ///   - timestamp: its RTP timestamp (one per frame).
    /// - Parameter switchUpTo: from the Dependency Descriptor (when it stands in for TID and Y):
    ///   the highest temporal layer the frame is a switch point of (-1: none); the layer goes up to
    ///   it at the frame's start, several layers at once.
    mutating func select(_ descriptor: VP8PayloadDescriptor, isKeyFrame: Bool, timestamp: UInt32, switchUpTo: Int = -1) -> Bool {
        let boundary = !inFrame || timestamp != frameTimestamp
        if boundary {
            inFrame = true
            frameTimestamp = timestamp
            if target < current { current = target }
        }
        guard let tid = descriptor.temporalLayerID.map({ Int($0) }) else { return true }
        if isKeyFrame {
            current = target
        } else if boundary, descriptor.isFrameStart, switchUpTo > current {
            current = min(target, switchUpTo)
        } else if boundary, descriptor.isFrameStart, descriptor.layerSync, tid == current + 1, tid <= target {
            current = tid
        }
        return tid <= current
    }
}
