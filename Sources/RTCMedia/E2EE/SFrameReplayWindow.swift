/// Which SFrame counters of one key id were accepted, to refuse a ciphertext seen before (RFC 9605
/// §7.3 leaves replay protection to the application): the newest counter accepted and a bitmap of
/// the `size` counters up to it, as SRTP keeps its replay list (RFC 3711 §3.3.2). Used for
/// encrypted data messages (docs/e2ee.md, "Data messages"); a sender's media frames take counters
/// from the same sequence, so the counters of its messages have gaps, which the window allows.
///
/// Record a counter only after its ciphertext authenticated: a forged one must not move the window.
public struct SFrameReplayWindow: Sendable {
    /// How many counters below the newest accepted one are still told apart.
    public static let size = 1024

    /// What `accept(_:)` made of a counter.
    public enum Verdict: Sendable, Equatable {
        /// Not seen before: recorded.
        case fresh
        /// Accepted before.
        case replayed
        /// `size` or more below the newest accepted counter: too old to tell.
        case tooOld
    }

    /// The newest counter accepted; nil before the first.
    public private(set) var newest: UInt64?
    /// Bit `c % size` is set when counter c (newest − size < c ≤ newest) was accepted.
    private var bits: [UInt64]

    public init() {
        bits = [UInt64](repeating: 0, count: Self.size / 64)
    }

    /// Records `counter` when it is fresh; the verdict either way.
    public mutating func accept(_ counter: UInt64) -> Verdict {
        guard let newest else {
            set(counter)
            self.newest = counter
            return .fresh
        }
        if counter > newest {
            // Counters skipped between the old newest and this one become slots for late arrivals.
            if counter - newest >= UInt64(Self.size) {
                for i in bits.indices { bits[i] = 0 }
            } else {
                var c = newest + 1
                while c < counter { clear(c); c += 1 }
            }
            set(counter)
            self.newest = counter
            return .fresh
        }
        guard newest - counter < UInt64(Self.size) else { return .tooOld }
        if isSet(counter) { return .replayed }
        set(counter)
        return .fresh
    }

    private func slot(_ counter: UInt64) -> (Int, UInt64) {
        let index = Int(counter % UInt64(Self.size))
        return (index / 64, 1 << UInt64(index % 64))
    }

    private func isSet(_ counter: UInt64) -> Bool {
        let (word, bit) = slot(counter)
        return bits[word] & bit != 0
    }

    private mutating func set(_ counter: UInt64) {
        let (word, bit) = slot(counter)
        bits[word] |= bit
    }

    private mutating func clear(_ counter: UInt64) {
        let (word, bit) = slot(counter)
        bits[word] &= ~bit
    }
}
