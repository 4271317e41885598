/// How deep one remote-audio source of the speaker's mixer buffers before it plays (its playout
/// delay), adapted to the jitter it meets:
/// - an underrun (the source ran dry while playing: a gap in arrivals longer than what was
///   buffered) grows the target by `growStep` at once, and when audio arrives again, to cover
///   that whole gap: the target before the underrun, plus how long the source stayed dry, plus
///   `growStep`; never above `maximum`. The next gap of that size is then covered. The part of a
///   dry spell the sender itself paused for (a mute, a paused subscription, DTX: its RTP
///   timestamps jumped by as much) is no jitter: a gap the pause covers leaves the target as it
///   was before the underrun;
/// - after `stableWindows` windows in a row without an underrun, in which the buffer never came
///   closer than two `shrinkStep`s to empty, the target shrinks by `shrinkStep`, down to
///   `minimum`, and the mixer drops as much already buffered audio, so the latency follows.
///   Growth is immediate and shrinking slow (10 ms per 3 s by default), so a link that jitters
///   now and then keeps its margin, and a link that calmed down gets its latency back.
///
/// All values are in samples (48 kHz).
struct AdaptivePlayoutTarget: Sendable {
    let minimum: Int
    let maximum: Int
    let growStep: Int
    let shrinkStep: Int
    let stableWindows: Int
    /// Samples to buffer before playing (after the start and after each underrun).
    private(set) var samples: Int
    /// Underruns so far.
    private(set) var underruns = 0
    private var beforeUnderrun = 0
    private var underrunInWindow = false
    /// `underrunInWindow` before the last underrun (restored when that one was a sender's pause).
    private var underrunInWindowBefore = false
    private var stableInARow = 0
    /// The fewest samples buffered over the current stable windows.
    private var lowestInARow = Int.max

    /// - Parameters: `initial` is clamped to `minimum...maximum`; `maximum` ≥ `minimum`.
    init(initial: Int, minimum: Int, maximum: Int, growStep: Int = 960, shrinkStep: Int = 480, stableWindows: Int = 3) {
        self.minimum = max(0, minimum)
        self.maximum = max(self.minimum, maximum)
        self.growStep = max(0, growStep)
        self.shrinkStep = max(0, shrinkStep)
        self.stableWindows = max(1, stableWindows)
        samples = min(max(initial, self.minimum), self.maximum)
    }

    /// The source ran dry while playing.
    mutating func underrun() {
        underruns += 1
        underrunInWindowBefore = underrunInWindow
        underrunInWindow = true
        beforeUnderrun = samples
        samples = min(maximum, samples + growStep)
    }

    /// Audio arrived again after an underrun, `dry` samples of output after the source ran dry;
    /// `senderPause` samples of media time the sender skipped meanwhile (RTP time that passed
    /// with no packet sent for it) were not late, only absent.
    mutating func arrived(afterDry dry: Int, senderPause: Int = 0) {
        let late = dry - max(0, senderPause)
        guard late > 0 else {
            // The sender paused for at least as long as the source stayed dry: no jitter, so the
            // underrun neither counts nor grows the target, nor breaks the calm windows.
            underruns -= 1
            samples = beforeUnderrun
            underrunInWindow = underrunInWindowBefore
            return
        }
        samples = min(maximum, max(samples, beforeUnderrun + late + growStep))
    }

    /// A window of pulls ended; `lowest` is the fewest samples buffered after a pull in it.
    /// - Returns: how many buffered samples to drop now (the latency given back when shrinking).
    mutating func windowEnded(lowest: Int) -> Int {
        defer { underrunInWindow = false }
        guard !underrunInWindow else {
            stableInARow = 0
            lowestInARow = .max
            return 0
        }
        stableInARow += 1
        lowestInARow = min(lowestInARow, lowest)
        guard stableInARow >= stableWindows else { return 0 }
        let calm = lowestInARow >= 2 * shrinkStep
        stableInARow = 0
        lowestInARow = .max
        guard calm, samples > minimum else { return 0 }
        let step = min(shrinkStep, samples - minimum)
        samples -= step
        return step
    }
}
