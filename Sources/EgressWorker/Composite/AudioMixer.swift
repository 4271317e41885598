import Synchronization

/// Mixes the audio of every subscribed track into one mono stream, 20 ms at a time: each source
/// has a small FIFO (filled from its track's receive thread, drained by the mixing clock); a
/// source with less than a frame buffered adds silence this tick. The sum is scaled by
/// 1/√(active sources) for headroom, and a frame that would still exceed full scale is scaled down.
final class AudioMixer: Sendable {
    /// Samples per mix (20 ms at 48 kHz).
    static let frameCount = 960
    /// The mix's peak never exceeds this (just under full scale).
    static let ceiling: Float = 0.99
    /// Most samples a source may hold (200 ms); older ones are dropped to bound latency.
    static let maxBuffered = 9_600

    private struct Source {
        var samples: [Float] = []
        /// Playing once a little is buffered (so jitter does not cut every other frame).
        var playing = false
    }

    private let sources = Mutex<[String: Source]>([:])

    init() {}

    /// Adds decoded audio of `source` (48 kHz; channels averaged to mono).
    func push(source: String, samples: [Float], channels: Int) {
        let mono: [Float]
        if channels <= 1 {
            mono = samples
        } else {
            mono = stride(from: 0, to: samples.count - channels + 1, by: channels).map { i in
                samples[i..<(i + channels)].reduce(0, +) / Float(channels)
            }
        }
        sources.withLock { all in
            var s = all[source] ?? Source()
            s.samples += mono
            if s.samples.count > Self.maxBuffered { s.samples.removeFirst(s.samples.count - Self.maxBuffered) }
            all[source] = s
        }
    }

    /// Forgets a source (its track ended).
    func remove(source: String) {
        sources.withLock { _ = $0.removeValue(forKey: source) }
    }

    /// The next 20 ms of the mix, and how many sources were in it.
    func mix() -> (samples: [Float], active: Int) {
        var out = [Float](repeating: 0, count: Self.frameCount)
        var active = 0
        sources.withLock { all in
            for key in Array(all.keys) {
                guard var s = all[key] else { continue }
                if !s.playing && s.samples.count >= 2 * Self.frameCount { s.playing = true }
                if s.playing {
                    if s.samples.count >= Self.frameCount {
                        for i in 0..<Self.frameCount { out[i] += s.samples[i] }
                        s.samples.removeFirst(Self.frameCount)
                        active += 1
                    } else {
                        s.playing = false  // underrun: buffer up again
                    }
                }
                all[key] = s
            }
        }
        // Headroom for the sum, then a limiter: a frame whose peak still exceeds full scale is
        // scaled down as a whole (no clipping distortion).
        var gain = active > 1 ? 1 / Float(active).squareRoot() : 1
        let peak = out.reduce(Float(0)) { max($0, abs($1)) } * gain
        if peak > Self.ceiling { gain *= Self.ceiling / peak }
        if gain != 1 { for i in out.indices { out[i] *= gain } }
        return (out, active)
    }
}
