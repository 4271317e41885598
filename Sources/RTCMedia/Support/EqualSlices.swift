// How the packetizers cut a frame: into as few slices as fit the payload's room, of equal size
// (within one byte) rather than "full, full, …, runt", which spreads loss risk evenly and keeps
// packet sizes stable for pacing.

/// Equal-sized slices of a frame, each at most `capacity` bytes.
enum EqualSlices {
    /// Number of slices a frame of `length` bytes needs (0 for an empty frame).
    static func count(length: Int, capacity: Int) -> Int {
        length <= 0 ? 0 : (length + capacity - 1) / capacity
    }

    /// Calls `body` with each slice's index, byte range and whether it is the last, in order.
    static func forEach(length: Int, capacity: Int, _ body: (Int, Range<Int>, Bool) throws -> Void) rethrows {
        let count = count(length: length, capacity: capacity)
        guard count > 0 else { return }
        let base = length / count, extra = length % count
        var offset = 0
        for index in 0..<count {
            let sliceLength = base + (index < extra ? 1 : 0)
            try body(index, offset ..< offset + sliceLength, index == count - 1)
            offset += sliceLength
        }
    }
}
