import RTCWire

/// Rewrites one consumer's RTP sequence numbers so the subscriber sees one gap-free stream.
///
/// A consumer forwards only some of a producer's packets (it skips padding-only packets, it
/// switches between simulcast streams that each count on their own), yet a receiver treats every
/// missing number as loss (RFC 3550 §A.3) and NACKs it. So each input maps to
/// `input − base`, where `base` grows by one for every input the consumer drops, and a `sync` makes
/// a new input stream continue right after the last number sent.
///
/// Late (reordered) packets get the number they would have had: drops newer than them are added
/// back. Inputs older than the last sync point are refused, since their numbers may already be
/// taken by the previous stream. All arithmetic wraps at 2^16 (RFC 3550 §A.1).
struct SeqManager: Sendable {
    // MARK: - State

    /// `output = input &- base` for inputs newer than every recorded drop.
    private var base: UInt16 = 0
    /// The newest input seen (forwarded or dropped) since the last sync.
    private var maxInput: UInt16 = 0
    /// The newest output produced.
    private(set) var maxOutput: UInt16
    /// The first input of the current stream; older inputs are refused.
    private var syncInput: UInt16 = 0
    /// True until the first input (or until `sync`): that input becomes the sync point.
    private var needsSync = true
    /// Recent dropped inputs (newest last), for late packets; fixed capacity, no allocation once built.
    private var drops: DropRing
    /// For each number inserted by `insert()`: the newest input before it, for late packets.
    private var inserts: DropRing

    /// - Parameter initialOutput: the first sequence number the subscriber sees (random by default,
    ///   RFC 3550 §5.1).
    init(initialOutput: UInt16 = .random(in: 0 ... .max), dropHistory: Int = 64) {
        maxOutput = initialOutput &- 1
        drops = DropRing(capacity: dropHistory)
        inserts = DropRing(capacity: dropHistory)
    }

    // MARK: - API

    /// Makes `input` (the next packet of a new or resumed input stream) map to the number after the
    /// last one sent. Call on a simulcast switch or on resume.
    mutating func sync(_ input: UInt16) {
        base = input &- (maxOutput &+ 1)
        syncInput = input
        maxInput = input &- 1
        needsSync = false
        drops.removeAll()
        inserts.removeAll()
    }

    /// A number of the consumer's own (a padding-only packet, RFC 3550 §5.1) right after the last
    /// one sent; the inputs that follow continue after it. Nil before the first input.
    mutating func insert() -> UInt16? {
        if needsSync { return nil }
        base &-= 1
        maxOutput &+= 1
        inserts.append(maxInput)
        return maxOutput
    }

    /// Marks the next sync as pending: the next `input` call starts a new stream.
    mutating func requestSync() { needsSync = true }

    /// Records that `input` is not forwarded, so later numbers close the gap it leaves.
    /// Dropping an old (reordered) input changes nothing: newer ones already have their numbers.
    mutating func drop(_ input: UInt16) {
        if needsSync { return }
        guard SequenceNumber.isNewer(input, than: maxInput) else { return }
        // Inputs skipped between maxInput and this one (lost upstream) keep their numbers.
        base &+= 1
        maxInput = input
        drops.append(input)
    }

    /// The output number for `input`, or nil when it is older than the current stream's start.
    mutating func input(_ input: UInt16) -> UInt16? {
        if needsSync { sync(input) }
        if SequenceNumber.isNewer(syncInput, than: input) { return nil }
        var output = input &- base
        if SequenceNumber.isNewer(input, than: maxInput) {
            maxInput = input
        } else {
            // A late packet: drops recorded after it were not yet counted when it was due, nor
            // numbers inserted after it.
            output &+= drops.countNewer(than: input)
            output &-= inserts.countNewer(than: input &- 1)
        }
        if SequenceNumber.isNewer(output, than: maxOutput) { maxOutput = output }
        return output
    }
}

/// A fixed ring of recently dropped sequence numbers.
struct DropRing: Sendable {
    private var values: [UInt16]
    private var next = 0
    private var count = 0

    init(capacity: Int) {
        values = [UInt16](repeating: 0, count: max(1, capacity))
    }

    mutating func append(_ value: UInt16) {
        values[next] = value
        next = (next + 1) % values.count
        count = min(count + 1, values.count)
    }

    mutating func removeAll() {
        count = 0
        next = 0
    }

    /// How many recorded values are newer than `value` (wrap-aware).
    func countNewer(than value: UInt16) -> UInt16 {
        var newer: UInt16 = 0
        var index = next
        for _ in 0 ..< count {
            index = index == 0 ? values.count - 1 : index - 1
            if SequenceNumber.isNewer(values[index], than: value) { newer &+= 1 }
        }
        return newer
    }
}
