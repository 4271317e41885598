/// What a scalable producer's packets say about its spatial layers: how many there are (declared
/// by the stream — VP9's scalability structure N_S (RFC 9628 §4.2.1), the AV1 Dependency
/// Descriptor's template structure (av1-rtp-spec §A.8.2) — else the highest spatial id seen) and
/// each layer's measured bitrate, for the per-subscriber layer choice (`LayerAllocator` through
/// `SVCConsumer`). Storage is made once; counting a packet does not allocate. I/O thread only.
struct SpatialLayerMeter {
    /// VP9's SID is 3 bits (AV1's spatial_id 2).
    static let maxLayers = 8

    /// Spatial layers the stream carries now (at least 1).
    private(set) var count = 1
    private var bytes = [UInt64](repeating: 0, count: maxLayers)
    private var lastPacket = [Int64](repeating: .min, count: maxLayers)
    private var meterBytes = [UInt64](repeating: 0, count: maxLayers)
    private var meterTime: Int64 = .min
    private var meterRates = [[Int]](repeating: [Int](repeating: 0, count: ProducerStream.meterWindows), count: maxLayers)
    private var meterNext = 0
    private var meterCount = 0
    private var rates = [Int](repeating: 0, count: maxLayers)

    /// Counts one packet of `size` bytes of spatial layer `layer`.
    /// - Parameter declaredCount: the layer count the packet declares (a structure it carries), if any.
    @inline(__always)
    mutating func received(layer: Int, declaredCount: Int?, size: Int, now: Int64) {
        guard layer >= 0, layer < Self.maxLayers else { return }
        bytes[layer] &+= UInt64(size)
        lastPacket[layer] = now
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
    /// an upper layer's subscriber gets its own layer alone). Measured as `cumulativeBitrates`.
    mutating func bitrates(now: Int64, interval: Int64 = 500_000, includes: (_ layer: Int, _ lower: Int) -> Bool) -> [Int] {
        if meterTime == .min {
            meterTime = now
            meterBytes = bytes
        } else if now - meterTime >= interval {
            for layer in 0 ..< Self.maxLayers {
                let instant = Int(min(1e10, Double(bytes[layer] &- meterBytes[layer]) * 8 * 1_000_000 / Double(now - meterTime)))
                meterRates[layer][meterNext] = instant
            }
            meterNext = (meterNext + 1) % ProducerStream.meterWindows
            meterCount = min(ProducerStream.meterWindows, meterCount + 1)
            for layer in 0 ..< Self.maxLayers {
                rates[layer] = ProducerStream.trimmedMean(meterRates[layer], count: meterCount, newest: meterNext)
            }
            meterTime = now
            meterBytes = bytes
        }
        return (0 ..< count).map { layer in
            var sum = 0
            for lower in 0 ... layer where lower == layer || includes(layer, lower) { sum += rates[lower] }
            let active = lastPacket[layer] != .min && now - lastPacket[layer] <= 1_500_000
            return active ? max(sum, 1) : 0
        }
    }
}
