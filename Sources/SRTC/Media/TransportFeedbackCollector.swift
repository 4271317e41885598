import RTCWire

/// Transport-cc on the receive side: the arrival times of packets carrying a transport-wide
/// sequence number, sent back as feedback every `interval` (draft-holmer-rmcat-transport-wide-cc-
/// extensions-01 §3.1), from which the server estimates what this client can receive and probes
/// for more. I/O thread only (its owner keeps it behind a lock).
struct TransportFeedbackCollector {
    /// How often feedback goes out while packets arrive, µs.
    static let interval: Int64 = 50_000
    /// Arrivals held at most; feedback goes out early when this many wait.
    static let capacity = 1024

    private var arrivals: [TransportCCArrival] = []
    private var lastSent: Int64 = .min
    private var count: UInt8 = 0
    /// Where the last feedback ended: a late arrival does not take the next one back over it.
    private var window = TransportCCWindow()

    init() { arrivals.reserveCapacity(Self.capacity) }

    mutating func record(sequenceNumber: UInt16, arrival: Int64) {
        if arrivals.count < Self.capacity { arrivals.append(TransportCCArrival(sequenceNumber: sequenceNumber, arrivalTime: arrival)) }
    }

    /// The feedback due at `now`, if any.
    mutating func feedback(senderSSRC: UInt32, mediaSSRC: UInt32, now: Int64) -> TransportLayerCC? {
        guard !arrivals.isEmpty, lastSent == .min || now - lastSent >= Self.interval || arrivals.count >= Self.capacity / 2 else { return nil }
        lastSent = now
        defer { arrivals.removeAll(keepingCapacity: true) }
        window.dropCovered(&arrivals)
        guard !arrivals.isEmpty else { return nil }
        guard let feedback = try? TransportLayerCC(senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, feedbackPacketCount: count,
                                                   arrivals: arrivals) else { return nil }
        count &+= 1
        return feedback
    }
}
