/// What a scalable producer's packets say about its spatial and temporal layers: how many spatial
/// layers there are (declared by the stream — VP9's scalability structure N_S (RFC 9628 §4.2.1),
/// the AV1 Dependency Descriptor's template structure (av1-rtp-spec §A.8.2) — else the highest
/// spatial id seen), how many temporal layers (the highest temporal id seen), and the measured
/// bitrate of each (spatial, temporal) layer, for the per-subscriber layer choice
/// (`LayerAllocator` through `SVCConsumer`). Storage is made once; counting a packet does not
/// allocate. I/O thread only.
struct SpatialLayerMeter {
    /// VP9's SID is 3 bits (AV1's spatial_id 2).
    static let maxLayers = 8
    /// VP9's TID and AV1's temporal_id are 3 bits.
    static let maxTemporalLayers = 8
    private static let slots = maxLayers * maxTemporalLayers

    /// Spatial layers the stream carries now (at least 1).
    private(set) var count = 1
    /// Temporal layers the stream carries (the highest temporal id seen + 1, at least 1).
    private(set) var temporalCount = 1
    /// Per slot `spatial * maxTemporalLayers + temporal`.
    private var bytes = [UInt64](repeating: 0, count: slots)
    private var lastPacket = [Int64](repeating: .min, count: slots)
    private var meterBytes = [UInt64](repeating: 0, count: slots)
    private var meterTime: Int64 = .min
    private var meterRates = [[Int]](repeating: [Int](repeating: 0, count: ProducerStream.meterWindows), count: slots)
    private var meterNext = 0
    private var meterCount = 0
    private var rates = [Int](repeating: 0, count: slots)

    /// Counts one packet of `size` bytes of spatial layer `layer`, temporal layer `temporal`.
    /// - Parameter declaredCount: the layer count the packet declares (a structure it carries), if any.
    @inline(__always)
    mutating func received(layer: Int, temporal: Int = 0, declaredCount: Int?, size: Int, now: Int64) {
        guard layer >= 0, layer < Self.maxLayers, temporal >= 0, temporal < Self.maxTemporalLayers else { return }
        let slot = layer * Self.maxTemporalLayers + temporal
        bytes[slot] &+= UInt64(size)
        lastPacket[slot] = now
        if temporal >= temporalCount { temporalCount = temporal + 1 }
        if let declared = declaredCount, declared > 0 {
            count = min(declared, Self.maxLayers)
        } else if layer >= count {
            count = layer + 1
        }
    }

    /// Bits per second of each spatial layer **with the layers below it** (what a subscriber of
    /// that layer receives), lowest first, `count` of them; 0 for a layer not received in the last
    /// 1.5 s. Measured over `ProducerStream.meterWindows` intervals of at least `interval` µs
    /// (peaks trimmed as `ProducerStream.bitrate` is), so callers in the same interval share one
    /// measurement.
    mutating func cumulativeBitrates(now: Int64, interval: Int64 = 500_000) -> [Int] {
        bitrates(now: now, interval: interval) { layer, lower in lower <= layer }
    }

    /// Bits per second a subscriber of each spatial layer receives, lowest first, `count` of
    /// them (0 for a layer not received in the last 1.5 s), when it receives layer `lower`'s
    /// packets with layer `layer`'s only where `includes(layer, lower)` (with AV1's `L3T3_KEY`,
    /// an upper layer's subscriber gets its own layer alone), every temporal layer included.
    /// Measured as `cumulativeBitrates`.
    mutating func bitrates(now: Int64, interval: Int64 = 500_000, includes: (_ layer: Int, _ lower: Int) -> Bool) -> [Int] {
        measure(now: now, interval: interval)
        return (0 ..< count).map { layer in
            var sum = 0, active = false
            for lower in 0 ... layer where lower == layer || includes(layer, lower) {
                for t in 0 ..< temporalCount { sum += rates[lower * Self.maxTemporalLayers + t] }
            }
            for t in 0 ..< temporalCount {
                let last = lastPacket[layer * Self.maxTemporalLayers + t]
                if last != .min && now - last <= 1_500_000 { active = true }
            }
            return active ? max(sum, 1) : 0
        }
    }

    /// What a subscriber receives at each (spatial, temporal) pair, in the allocator's order:
    /// index `spatial * temporalCount + temporal`, so a lower index drops temporal layers before
    /// a spatial one (LiveKit's order). Each costs the packets of temporal layers up to `temporal`
    /// of its spatial layer and of the lower ones `includes` names; 0 for a pair whose temporal
    /// layer was not received in the last 1.5 s. Measured as `cumulativeBitrates`.
    mutating func ladderBitrates(now: Int64, interval: Int64 = 500_000, includes: (_ layer: Int, _ lower: Int) -> Bool) -> [Int] {
        measure(now: now, interval: interval)
        let temporalLayers = temporalCount
        var ladder = [Int](repeating: 0, count: count * temporalLayers)
        for layer in 0 ..< count {
            for temporal in 0 ..< temporalLayers {
                var sum = 0
                for lower in 0 ... layer where lower == layer || includes(layer, lower) {
                    for t in 0 ... temporal { sum += rates[lower * Self.maxTemporalLayers + t] }
                }
                let last = lastPacket[layer * Self.maxTemporalLayers + temporal]
                let active = last != .min && now - last <= 1_500_000
                ladder[layer * temporalLayers + temporal] = active ? max(sum, 1) : 0
            }
        }
        return ladder
    }

    // MARK: - Internals

    private mutating func measure(now: Int64, interval: Int64) {
        if meterTime == .min {
            meterTime = now
            meterBytes = bytes
        } else if now - meterTime >= interval {
            for slot in 0 ..< Self.slots {
                let instant = Int(min(1e10, Double(bytes[slot] &- meterBytes[slot]) * 8 * 1_000_000 / Double(now - meterTime)))
                meterRates[slot][meterNext] = instant
            }
            meterNext = (meterNext + 1) % ProducerStream.meterWindows
            meterCount = min(ProducerStream.meterWindows, meterCount + 1)
            for slot in 0 ..< Self.slots {
                rates[slot] = ProducerStream.trimmedMean(meterRates[slot], count: meterCount, newest: meterNext)
            }
            meterTime = now
            meterBytes = bytes
        }
    }
}
