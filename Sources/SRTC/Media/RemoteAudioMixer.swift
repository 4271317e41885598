import Dispatch
import RTCMedia
import Synchronization

/// Mixes the decoded audio of every subscribed remote audio track (of every channel) into the one
/// mono 48 kHz stream the speaker plays.
///
/// Each track (source) fills its own ring buffer from its receive thread, 20 ms at a time, in
/// network rhythm; the output pulls any number of samples in its own rhythm. A source starts
/// playing once its playout target is buffered (`AdaptivePlayoutTarget`: 40 ms at first), which
/// absorbs arrival jitter, and buffers again after running dry. Each time it runs dry while
/// playing (an underrun) its target grows to cover that gap and 20 ms more, up to `maxPrefill`,
/// unless the sender paused for the gap (the RTP time it skipped, told with the buffer): a remote
/// mute or pause is no jitter;
/// after calm stretches it shrinks again by 10 ms at a time, down to `minPrefill`, dropping as
/// much buffered audio. A
/// burst (a sender or a receive thread that stalled and caught up) is played in full: dropping it
/// would cut the tone short, audibly (and raise its measured pitch). Only a source that stayed
/// more than `trimMargin` above its target for a whole `trimWindow` (its clock runs faster than
/// the speaker's) drops its oldest samples down to the target, so latency stays bounded; a full
/// ring (`capacity`) drops the oldest too. Sources that sent nothing for two seconds are
/// forgotten. The sum is clamped to ±1. Muted, the mixer outputs silence and discards what
/// arrives (nothing piles up).
package final class RemoteAudioMixer: Sendable {
    // MARK: - Types

    private struct Source {
        var ring: [Float]
        var read = 0
        var count = 0
        var playing = false
        var lastPush: UInt64 = 0
        /// Only for sources not at 48 kHz (the SDK's own decoder always is).
        var resampler: AudioResampler?
        var target: AdaptivePlayoutTarget
        /// Samples output since the source ran dry, until audio arrives again (nil: not dry).
        var dry: Int?
        /// The fewest samples buffered after a pull in the current trim window, and the samples
        /// pulled in it: what stayed buffered all along is latency, not jitter.
        var lowest = Int.max
        var pulledInWindow = 0

        init(capacity: Int, target: AdaptivePlayoutTarget) {
            ring = [Float](repeating: 0, count: capacity)
            self.target = target
        }

        /// Appends a decoded buffer, channels averaged to mono (resampled when not at 48 kHz);
        /// `senderPause`: media time (48 kHz samples) the sender skipped before it.
        mutating func append(_ buffer: AudioPCMBuffer, now: UInt64, senderPause: Int) {
            lastPush = now
            if let gap = dry {
                target.arrived(afterDry: gap, senderPause: senderPause)
                dry = nil
            }
            if buffer.sampleRate != RemoteAudioMixer.sampleRate {
                if resampler == nil { resampler = AudioResampler(outputRate: RemoteAudioMixer.sampleRate, outputChannels: 1) }
                for sample in resampler!.process(buffer) { append(sample) }
                return
            }
            let channels = buffer.channels, scale = 1 / Float(channels)
            switch buffer.samples {
            case .float32(let values):
                for frame in 0..<buffer.frameCount {
                    var sum: Float = 0
                    for c in 0..<channels { sum += values[frame * channels + c] }
                    append(sum * scale)
                }
            case .int16(let values):
                for frame in 0..<buffer.frameCount {
                    var sum: Float = 0
                    for c in 0..<channels { sum += Float(values[frame * channels + c]) }
                    append(sum * scale / 32_768)
                }
            }
        }

        mutating func append(_ sample: Float) {
            if count == ring.count { read = (read + 1) % ring.count; count -= 1 }   // full: drop the oldest
            ring[(read + count) % ring.count] = sample
            count += 1
        }

        /// Adds this source's next samples to `output` (once it has buffered its target); at the
        /// end of each window of `window` samples adapts the target and trims what stayed more
        /// than `trimMargin` above it.
        mutating func mix(into output: UnsafeMutableBufferPointer<Float>, trimMargin: Int, window: Int) {
            if !playing && count >= target.samples { playing = true }
            guard playing else {
                if let gap = dry { dry = gap + output.count }
                return
            }
            let n = min(output.count, count)
            for i in 0..<n { output[i] += ring[(read + i) % ring.count] }
            drop(n)
            if n < output.count {   // ran dry: buffer up again, deeper
                playing = false
                target.underrun()
                dry = output.count - n
            }
            lowest = min(lowest, count)
            pulledInWindow += output.count
            guard pulledInWindow >= window else { return }
            // A shrink drops what the target gave back; the low point is that much lower, so
            // the trim (a lasting excess) counts from there and never takes the same samples twice.
            let shrunk = target.windowEnded(lowest: lowest)
            drop(shrunk)
            let stayed = lowest - shrunk
            if stayed > target.samples + trimMargin { drop(stayed - target.samples) }
            lowest = Int.max
            pulledInWindow = 0
        }

        /// Empty and silent for two seconds: the track is gone or no longer subscribed.
        func isStale(now: UInt64) -> Bool {
            count == 0 && now &- lastPush > 2_000_000_000
        }

        mutating func drop(_ n: Int) {
            let n = min(n, count)
            read = (read + n) % ring.count
            count -= n
        }
    }

    // MARK: - Properties

    package static let sampleRate = 48_000
    /// A new source's playout target: 40 ms.
    let prefill: Int
    /// The bounds of the adaptive target: 20 ms and 300 ms.
    let minPrefill: Int
    let maxPrefill: Int
    /// Most a source may stay ahead of its target for a whole `trimWindow`: 80 ms.
    let trimMargin: Int
    /// How long a source must stay above its target and `trimMargin` before it is trimmed, and
    /// the window the target adapts over: 1 s.
    let trimWindow: Int
    /// Ring size per source (the longest burst played in full): 1 s.
    let capacity: Int
    private let sources = Mutex<[ObjectIdentifier: Source]>([:])
    private let mutedFlag = Atomic<Bool>(false)

    /// `minPrefill == maxPrefill == prefill` gives a fixed target.
    init(prefill: Int = 1_920, minPrefill: Int = 960, maxPrefill: Int = 14_400, trimMargin: Int = 3_840,
         trimWindow: Int = 48_000, capacity: Int = 48_000) {
        self.minPrefill = max(0, min(minPrefill, prefill))
        self.maxPrefill = max(prefill, maxPrefill)
        self.prefill = prefill
        self.trimMargin = max(0, trimMargin)
        self.trimWindow = max(1, trimWindow)
        self.capacity = max(self.maxPrefill + self.trimMargin, capacity)
    }

    // MARK: - Internals

    /// Whether the output is silent.
    package var isMuted: Bool {
        get { mutedFlag.load(ordering: .relaxed) }
        set {
            mutedFlag.store(newValue, ordering: .relaxed)
            if newValue { sources.withLock { $0.removeAll() } }
        }
    }

    /// Adds decoded audio of `source` (any rate; channels averaged to mono).
    /// - Parameter senderPause: 48 kHz samples of media time the sender skipped just before the
    ///   packet whose arrival released `buffer` (its RTP timestamp jumped past the packets' own
    ///   duration: a mute, a paused subscription, DTX). A dry spell that long was a pause, not
    ///   jitter, and does not grow the playout target.
    func push(_ source: ObjectIdentifier, _ buffer: AudioPCMBuffer, senderPause: Int = 0) {
        guard !isMuted, buffer.frameCount > 0 else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        sources.withLock { all in
            if all[source] == nil {
                all[source] = Source(capacity: capacity, target: AdaptivePlayoutTarget(initial: prefill, minimum: minPrefill, maximum: maxPrefill))
            }
            all[source]!.append(buffer, now: now, senderPause: senderPause)   // in place: the ring is not copied per buffer
        }
    }

    /// Fills `output` with the next samples of the mix.
    package func pull(into output: UnsafeMutableBufferPointer<Float>) {
        output.update(repeating: 0)
        guard !isMuted else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        sources.withLock { all in
            // In place (no copy of the table per pull); sources gone quiet are dropped afterwards.
            var stale = false
            for index in all.indices {
                all.values[index].mix(into: output, trimMargin: trimMargin, window: trimWindow)
                stale = stale || all.values[index].isStale(now: now)
            }
            if stale { all = all.filter { !$0.value.isStale(now: now) } }
        }
        for i in 0..<output.count { output[i] = max(-1, min(1, output[i])) }
    }

    /// Samples `source` has buffered (0 when unknown).
    func bufferedSamples(_ source: ObjectIdentifier) -> Int {
        sources.withLock { $0[source]?.count ?? 0 }
    }

    /// `source`'s playout target and its underruns so far (nil when unknown).
    func playout(_ source: ObjectIdentifier) -> (targetSamples: Int, underruns: Int)? {
        sources.withLock { $0[source].map { ($0.target.samples, $0.target.underruns) } }
    }

    /// How many sources are known (playing or buffering).
    var sourceCount: Int { sources.withLock { $0.count } }

    /// Forgets every source.
    func reset() {
        sources.withLock { $0.removeAll() }
    }
}
