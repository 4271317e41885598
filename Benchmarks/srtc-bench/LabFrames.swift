import SRTCLoad

/// The VP8 frames a lab subscriber completed, and when, from the packets it kept (its server's
/// bytes: parsed defensively, nothing trusted). A frame is its RTP timestamp's packets; it is
/// complete once the packet that starts it (VP8 payload descriptor S = 1, partition 0; RFC 7741
/// §4.2), the packet that ends it (the RTP marker) and every sequence number between have
/// arrived, retransmissions included; it completed when the last of those arrived. Without a
/// decoder this is what a decoder could have had: a complete delta frame after a lost one still
/// counts (the PLIs the subscriber sent say how often it had to ask for a key frame).
struct LabFrames {
    /// When each complete frame completed (monotonic µs, `LoadClock`), sorted.
    let completions: [Int64]

    init(_ packets: [LoadReceivedStream.CapturedPacket]) {
        struct Frame {
            var arrivals: [UInt16: Int64] = [:]
            var start: UInt16?
            var end: UInt16?
        }
        var frames: [UInt32: Frame] = [:]
        for packet in packets where !packet.payload.isEmpty {
            var frame = frames[packet.timestamp] ?? Frame()
            if frame.arrivals[packet.sequenceNumber] == nil { frame.arrivals[packet.sequenceNumber] = packet.arrival }
            if Self.startsFrame(packet.payload) { frame.start = packet.sequenceNumber }
            if packet.marker { frame.end = packet.sequenceNumber }
            frames[packet.timestamp] = frame
        }
        var completions: [Int64] = []
        for frame in frames.values {
            guard let start = frame.start, let end = frame.end else { continue }
            let count = Int(end &- start) + 1
            // A frame of this loop is a few dozen packets; a longer span is not one frame.
            guard count <= 512 else { continue }
            var last: Int64 = 0
            var complete = true
            for offset in 0 ..< count {
                guard let arrival = frame.arrivals[start &+ UInt16(offset)] else {
                    complete = false
                    break
                }
                last = max(last, arrival)
            }
            if complete { completions.append(last) }
        }
        self.completions = completions.sorted()
    }

    /// Whether a VP8 payload starts a frame: its descriptor's S bit set with partition index 0.
    static func startsFrame(_ payload: [UInt8]) -> Bool {
        guard let first = payload.first else { return false }
        return first & 0x10 != 0 && first & 0x07 == 0
    }

    /// Frames completed in `from ..< to` (µs).
    func count(from: Int64, to: Int64) -> Int {
        completions.filter { $0 >= from && $0 < to }.count
    }

    /// The longest time in `from ... to` (µs) without a frame completing, in seconds: the worst
    /// freeze a player would have shown.
    func worstGap(from: Int64, to: Int64) -> Double {
        var previous = from
        var worst: Int64 = 0
        for time in completions where time >= from && time <= to {
            worst = max(worst, time - previous)
            previous = time
        }
        return Double(max(worst, to - previous)) / 1e6
    }

    /// The first frame completed at or after `time` (µs), if any.
    func first(after time: Int64) -> Int64? {
        completions.first { $0 >= time }
    }
}
