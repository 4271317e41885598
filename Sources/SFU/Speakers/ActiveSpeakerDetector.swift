import Foundation

/// One entry of an active-speakers snapshot.
public struct SpeakerLevel: Hashable, Sendable {
    public var participant: ParticipantID
    public var producer: ProducerID
    /// Smoothed linear amplitude, 0 (silence) … 1 (0 dBov), from RFC 6464 levels.
    public var level: Double

    public init(participant: ParticipantID, producer: ProducerID, level: Double) {
        self.participant = participant
        self.producer = producer
        self.level = level
    }
}

/// Ranks a router's audio producers by loudness from their RFC 6464 levels.
///
/// Every interval the router hands in each producer's mean amplitude since the last interval;
/// each is smoothed exponentially (time constant ~400 ms, so a word lifts a speaker quickly and
/// a breath does not drop them), those above the silence threshold are sorted loudest first, and
/// the snapshot is returned only when the ordered list of producers differs from the last one
/// (levels alone changing is not news). The empty list is a valid snapshot: nobody speaks.
struct ActiveSpeakerDetector: Sendable {
    struct Configuration: Sendable {
        /// Exponential smoothing time constant, µs.
        var timeConstant: Int64 = 400_000
        /// Smoothed amplitudes below this are silence: 10^(-50/20), i.e. -50 dBov.
        var silenceThreshold: Double = 0.003_162
        /// At most this many speakers are listed.
        var maxSpeakers: Int = 10
    }

    struct Input: Sendable {
        var participant: ParticipantID
        var producer: ProducerID
        /// Mean amplitude over the interval (0 when nothing arrived).
        var meanAmplitude: Double
    }

    let configuration: Configuration
    private var smoothed: [ProducerID: Double] = [:]
    private(set) var lastOrder: [ProducerID] = []

    init(configuration: Configuration = Configuration()) { self.configuration = configuration }

    /// Folds in one interval of `elapsed` µs and returns the new snapshot when the order changed.
    mutating func update(_ inputs: [Input], elapsed: Int64) -> [SpeakerLevel]? {
        let alpha = 1 - exp(-Double(max(0, elapsed)) / Double(configuration.timeConstant))
        var next: [ProducerID: Double] = [:]
        var speakers: [SpeakerLevel] = []
        for input in inputs {
            let previous = smoothed[input.producer] ?? 0
            let value = previous + alpha * (input.meanAmplitude - previous)
            next[input.producer] = value
            if value >= configuration.silenceThreshold {
                speakers.append(SpeakerLevel(participant: input.participant, producer: input.producer, level: value))
            }
        }
        smoothed = next
        // Loudest first; equal levels by id so the order is stable.
        speakers.sort { $0.level != $1.level ? $0.level > $1.level : $0.producer.rawValue < $1.producer.rawValue }
        if speakers.count > configuration.maxSpeakers { speakers.removeLast(speakers.count - configuration.maxSpeakers) }
        let order = speakers.map(\.producer)
        guard order != lastOrder else { return nil }
        lastOrder = order
        return speakers
    }

    /// The smoothed amplitude of `producer` (0 when unknown).
    func level(of producer: ProducerID) -> Double { smoothed[producer] ?? 0 }
}
