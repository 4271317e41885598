/// Chooses the simulcast layer of every simulcast consumer on one subscriber transport, and when
/// to probe for more bandwidth. A pure model: estimate, measured layer rates, loss, queueing delay
/// and the clock come in (`update`), targets and probe requests go out; tested in virtual time.
///
/// Rules (docs/network.md):
/// - A layer costs its *measured* bitrate (`ProducerStream.bitrate`, key-frame peaks trimmed)
///   times `1 + overhead`. Audio is taken off the estimate first; single-stream video is a
///   demand with one layer (paused below it like any lowest layer).
/// - Every consumer first gets its lowest active layer, then consumers are raised one layer at a
///   time, round robin, toward their preferred layer while the budget covers the extra cost.
///   Keeping the layer held needs only its cost; raising needs `upgradeHeadroom` times the extra:
///   the band between the two is the hysteresis.
/// - A lower layer is taken only once the budget has stayed below what the held layer needs for
///   `downgradeHold` (an estimate that dips and comes back resets the clock), or at once when the
///   transport sees congestion (loss over its threshold, or queueing delay that lasts). Neither during
///   `startupGrace` after the first estimate, unless congested.
/// - Audio comes first: a lower layer taken under congestion stops the current one at once
///   (`Decision.congested`), and when the budget cannot carry a consumer's lowest layer (with the
///   same hold, never at once: a congested round lowers a layer but does not pause; with
///   transport-cc only while the transport is congested), the consumer pauses
///   (`Decision.paused`: nothing sent) and resumes on its lowest layer once the budget covers that
///   layer with `upgradeHeadroom`, which, as for a raise, takes a probe.
/// - A receiver-side estimate cannot grow above what it receives, so the way up is a probe: when a
///   consumer holds less than it asked for, the transport is asked to send up to the rate the next
///   layer would need (`Decision.probe`); the probe stops at once on loss or queueing delay and
///   succeeds when the delivered rate (transport-cc) or the estimate (REMB) reaches it; a REMB
///   probe goes on while the receiver's estimate keeps rising. A failed probe is tried again
///   after a backoff that doubles up to `maxProbeBackoff`.
/// - Probes spare the audio: one starts only while the link shows no queue and no loss, and a
///   transport-cc probe asks for at most `probeStep` times the estimate (a higher goal is reached
///   in steps), so a probe that fails overfills the bottleneck's queue by little.
///
/// - Temporal layers go before spatial ones: a consumer that can drop temporal layers (VP9, AV1
///   SVC) is allocated on its ladder of (spatial, temporal) steps, `spatial * temporalLayers +
///   temporal`, each costing what that subscriber receives there. A budget short of the held step
///   takes the highest step that fits: the same spatial layer at 15 fps, then 7.5 fps (L?T3),
///   before the next spatial layer down; raising may pass over steps that do not fit to a higher spatial layer's lower frame rate
///   that does (it can cost less than the top frame rate of the layer below).
///
/// Layers are spatial indices, 0 the lowest (ladder steps for a demand with `temporalLayers` > 1).
struct LayerAllocator: Sendable {
    // MARK: - Types

    struct Configuration: Sendable {
        /// Bytes a forwarded packet carries beyond what the layer's measured rate counts
        /// (SRTP tag, our header extensions, IP and UDP headers), as a fraction of the rate.
        var overhead = 0.08
        /// Raising a consumer needs this multiple of the extra cost.
        var upgradeHeadroom = 1.15
        /// How long the budget must stay below the held layer's cost before a downgrade, µs.
        var downgradeHold: Int64 = 1_500_000
        /// No bandwidth downgrade this long after the first estimate unless congested, µs.
        var startupGrace: Int64 = 3_000_000
        /// No raise (nor probe) this long after a bandwidth downgrade, µs.
        var upgradeHoldAfterDowngrade: Int64 = 2_000_000
        /// Loss (transport-cc, per feedback) that counts as congestion, with at least
        /// `congestionLossDelay` of queueing delay that rose within the last 1–2 s and stayed
        /// two feedbacks (`Signals.lossQueueDelay`): a bottleneck's queue that overflows. Loss
        /// without delay growth (random loss on a radio link, a lossy relay) is not congestion:
        /// a lower layer would lose as much.
        var congestionLoss = 0.10
        var congestionLossDelay: Int64 = 20_000
        /// Loss or queueing delay that stops a probe at once.
        var probeStopLoss = 0.05
        var probeStopDelay: Int64 = 30_000
        /// The probe sends this multiple of the rate it must prove, and at least `probeMinimumExcess`
        /// bits per second above it: a token bucket in the path (a policer, tc's tbf) passes a
        /// probe barely above the link's rate until its burst is spent, which takes seconds at a
        /// small excess (8 kB at 60 kbit/s: 1.1 s) and well under `probeMinimumDuration` at this one.
        var probeOvershoot = 1.1
        var probeMinimumExcess = 100_000
        /// A transport-cc probe succeeds no sooner than this after its start (the estimator
        /// measures its later windows, past a token bucket's burst), µs.
        var probeMinimumDuration: Int64 = 750_000
        /// How long a probe lasts at most: with transport-cc its result comes within one
        /// feedback window; a REMB receiver raises its estimate more slowly, µs.
        var probeDuration: Int64 = 1_200_000
        var rembProbeDuration: Int64 = 4_000_000
        /// A REMB probe goes on, a `rembProbeDuration` at a time, while the estimate rose by
        /// `rembProbeProgress` in the last one (a receiver's AIMD raises it by about 8 % a
        /// second), up to this long in all, µs.
        var maxRembProbe: Int64 = 20_000_000
        var rembProbeProgress = 1.05
        /// Wait after a failed probe: doubles from the first value up to the second, µs. The
        /// longest wait bounds how long a link that came back goes unnoticed (nothing else shows
        /// it: what is not sent is not measured); a failed probe costs the audio no loss, some
        /// delay in the link's queue (80–160 ms in the network lab at 300 kbit/s).
        var probeBackoff: Int64 = 1_500_000
        var maxProbeBackoff: Int64 = 3_000_000
        /// A transport-cc probe's goal is at most this multiple of the estimate: a probe that fails
        /// on a narrow link overfills its queue by what it sends above the link's rate until its
        /// delay comes back (a feedback interval and a round trip), and that overflow drops audio
        /// with the video. A goal further up is reached in steps, each one a probe.
        var probeStep = 1.5
        /// After a step that succeeded short of the goal the next starts this soon, not after
        /// `probeBackoff`, µs. At 0 the next step goes on in the same round, the padding without
        /// a pause (`Decision.probeContinued`).
        var probeStepWait: Int64 = 0
        /// A probe starts only on a link without a standing queue: the last transport-cc feedback
        /// showed less queueing delay than this and no loss, nor did the receiver's reports.
        var probeStartDelay: Int64 = 15_000
        var probeStartLoss = 0.02
    }

    struct Demand: Sendable, Equatable {
        /// Identifies the consumer across calls (its state: hold clocks).
        var id: Int = 0
        /// The subscriber's choice.
        var preferred: Int
        /// The layer held now (the consumer's target), if any.
        var current: Int?
        /// Measured bitrate of each layer, bits per second; 0 marks a layer not available (a layer
        /// dynacast paused at the publisher is available at its last rate: `MediaTransport.layerBitrates`).
        var layerBitrates: [Int]
        /// Whether the consumer is paused for bandwidth now (`Decision.paused`).
        var paused = false
        /// Temporal layers per spatial layer: above 1, the layers are the consumer's ladder of
        /// (spatial, temporal) steps, `spatial * temporalLayers + temporal`.
        var temporalLayers = 1
    }

    /// What the transport knows this round.
    struct Signals: Sendable, Equatable {
        /// Bits per second the subscriber can receive; nil when unknown.
        var estimate: Int?
        /// Bits per second of streams not allocated here (audio).
        var fixed = 0
        /// Transport-cc loss and queueing delay of the last feedback (0 without transport-cc).
        var lossRate = 0.0
        var queueDelay: Int64 = 0
        /// The queueing delay loss is judged with: how far the delay rose over the last 1–2 s
        /// (`BandwidthEstimator.lastLossQueueDelay`); nil: `queueDelay`.
        var lossQueueDelay: Int64?
        /// Whether queueing delay has lasted (`BandwidthEstimator.overusing`): congestion.
        var overusing = false
        /// Rate delivered to the subscriber of what was sent during the current probe, from
        /// transport-cc feedback; nil without transport-cc or before any came back.
        var probeDelivered: Int?
        /// Loss seen by the subscriber on our streams (RR fraction lost), for REMB receivers.
        var reportedLoss = 0.0
        /// Whether transport-cc feedback comes back (else the estimate is the receiver's REMB).
        var transportCC = false
    }

    enum ProbeOutcome: Sendable, Equatable {
        case started(goal: Int)
        case succeeded(goal: Int, delivered: Int)
        case failed(goal: Int, reason: String)
    }

    struct Decision: Sendable, Equatable {
        /// One target per demand; nil when none of its layers is active. For a paused demand, the
        /// layer it will resume on.
        var targets: [Int?]
        /// One per demand: whether it sends nothing, the budget being below its lowest layer.
        var paused: [Bool] = []
        /// While probing: the bits per second the transport should send in all (media plus
        /// probe packets); nil when not probing.
        var probeRate: Int?
        /// A probe succeeded on transport-cc evidence: the estimator should take this estimate.
        var acceptedEstimate: Int?
        /// What happened to a probe in this round, for logs and tests.
        var probeOutcome: ProbeOutcome?
        /// The transport saw congestion this round: a lower target should take effect at once.
        var congested = false
        /// A step succeeded this round and the next step started at once: its goal. The probe
        /// goes on without a pause; the transport measures its delivered rate afresh.
        var probeContinued: Int?
    }

    struct Probe: Sendable, Equatable {
        var goal: Int
        var start: Int64
        var until: Int64
        /// The estimate when the current stretch of the probe started.
        var estimateAtStretch: Int
        var transportCC: Bool
        /// Whether the goal is a step short of what the raise needs (`probeStep`).
        var step = false
    }

    private struct Hold: Sendable {
        var lowSince: Int64?
        /// Since when the budget has been below the lowest layer.
        var pauseSince: Int64?
        var lastDowngrade: Int64 = .min
    }

    // MARK: - State

    var configuration = Configuration()
    private var holds: [Int: Hold] = [:]
    private var firstEstimate: Int64?
    private(set) var probe: Probe?
    private var nextProbe: Int64 = .min
    private var backoff: Int64?

    init(configuration: Configuration = Configuration()) { self.configuration = configuration }

    // MARK: - Public API

    /// One allocation round at `now`.
    mutating func update(now: Int64, signals: Signals, demands: [Demand]) -> Decision {
        let c = configuration
        // A layer held that the producer does not (or no longer) report is no layer held: a VP9
        // consumer asked for its top spatial layer before the producer's packets showed it held
        // an index past `layerBitrates`, and costing it crashed the server (test_browser_vp9_svc).
        let demands = demands.map { demand in
            guard let current = demand.current, current >= demand.layerBitrates.count else { return demand }
            var known = demand
            known.current = nil
            return known
        }
        let ids = Set(demands.map(\.id))
        holds = holds.filter { ids.contains($0.key) }
        guard var estimate = signals.estimate else {
            probe = nil
            return Decision(targets: demands.map { Self.ceiling($0) }, paused: demands.map(\.paused))
        }
        if firstEstimate == nil { firstEstimate = now }
        var decision = Decision(targets: [])
        let congested = c.isCongestion(lossRate: signals.lossRate, queueDelay: signals.lossQueueDelay ?? signals.queueDelay,
                                       overusing: signals.overusing)

        // A probe running: stop it, or count its success.
        var stepSucceeded = false
        if let running = probe {
            if signals.lossRate >= c.probeStopLoss || signals.queueDelay >= c.probeStopDelay || signals.reportedLoss >= c.probeStopLoss {
                let reason = signals.queueDelay >= c.probeStopDelay ? "delay" : "loss"
                endProbe(now: now, succeeded: false)
                decision.probeOutcome = .failed(goal: running.goal, reason: reason)
            } else if let delivered = signals.probeDelivered, delivered >= running.goal, now - running.start >= c.probeMinimumDuration {
                endProbe(now: now, succeeded: true, step: running.step)
                stepSucceeded = running.step
                estimate = max(estimate, delivered)
                decision.acceptedEstimate = delivered
                decision.probeOutcome = .succeeded(goal: running.goal, delivered: delivered)
            } else if estimate >= running.goal {
                endProbe(now: now, succeeded: true, step: running.step)
                stepSucceeded = running.step
                decision.probeOutcome = .succeeded(goal: running.goal, delivered: estimate)
            } else if now >= running.until {
                let rising = Double(estimate) >= Double(running.estimateAtStretch) * c.rembProbeProgress
                if !running.transportCC, rising, now - running.start + c.rembProbeDuration <= c.maxRembProbe {
                    probe?.until = now + c.rembProbeDuration
                    probe?.estimateAtStretch = estimate
                } else {
                    endProbe(now: now, succeeded: false)
                    decision.probeOutcome = .failed(goal: running.goal, reason: "timeout")
                }
            }
        }

        let ideal = allocation(budget: max(0, estimate - signals.fixed), demands: demands)
        let starting = now - (firstEstimate ?? now) < c.startupGrace
        var targets: [Int?] = []
        var paused: [Bool] = []
        for (index, demand) in demands.enumerated() {
            var hold = holds[demand.id] ?? Hold()
            let wanted = ideal.targets[index]
            var target = wanted
            var pause = false
            // With transport-cc an estimate below the lowest layer pauses only while the link
            // shows congestion, and not while a probe (or its queue) is the cause: an estimate
            // still low after congestion ended (it grows back slowly) is no evidence that the
            // lowest layer does not fit.
            let starved = ideal.paused[index] && (!signals.transportCC || (congested && probe == nil))
            hold.pauseSince = starved ? (hold.pauseSince ?? now) : nil
            if demand.paused {
                // Resumes when the budget covers the lowest layer with headroom, not within the
                // hold after the pause.
                pause = ideal.paused[index] || now - hold.lastDowngrade < c.upgradeHoldAfterDowngrade
                if pause { target = Self.lowestActive(demand) }
            } else if let since = hold.pauseSince {
                if !starting && now - since >= c.downgradeHold {
                    hold.lowSince = nil
                    hold.pauseSince = nil
                    hold.lastDowngrade = now
                    pause = true
                } else if congested, let held = demand.current, let lowest = wanted, lowest < held {
                    // Congestion lowers the layer at once; the pause still waits for its hold.
                    hold.lastDowngrade = now
                } else {
                    target = demand.current ?? wanted
                }
            } else if let held = demand.current, let lower = wanted, lower < held {
                let since = hold.lowSince ?? now
                hold.lowSince = since
                if congested || (!starting && now - since >= c.downgradeHold) {
                    hold.lowSince = nil
                    hold.lastDowngrade = now
                } else {
                    target = held
                }
            } else {
                hold.lowSince = nil
                if let held = demand.current, let higher = wanted, higher > held,
                   hold.lastDowngrade != .min, now - hold.lastDowngrade < c.upgradeHoldAfterDowngrade {
                    target = held
                }
            }
            holds[demand.id] = hold
            targets.append(target)
            paused.append(pause)
        }
        decision.targets = targets
        decision.paused = paused
        decision.congested = congested

        let quiet = signals.reportedLoss < c.probeStartLoss
            && (!signals.transportCC || (signals.queueDelay < c.probeStartDelay && signals.lossRate < c.probeStartLoss))
        // After a step that succeeded the next one starts in the same round (`probeStepWait` 0):
        // its padding goes on without the pause to the next 500 ms round.
        if probe == nil, decision.probeOutcome == nil || stepSucceeded, !congested, quiet, now >= nextProbe,
           let wanted = probeGoal(now: now, signals: signals, demands: demands, targets: targets, paused: paused), estimate < wanted {
            let duration = signals.transportCC ? c.probeDuration : c.rembProbeDuration
            // With transport-cc, in steps of at most `probeStep` times the estimate.
            let cap = signals.transportCC ? Int(Double(estimate) * c.probeStep) : wanted
            let goal = min(wanted, cap)
            probe = Probe(goal: goal, start: now, until: now + duration, estimateAtStretch: estimate,
                          transportCC: signals.transportCC, step: goal < wanted)
            if stepSucceeded {
                decision.probeContinued = goal
            } else {
                decision.probeOutcome = .started(goal: goal)
            }
        }
        decision.probeRate = probe.map { Self.probeRate(goal: $0.goal, configuration: c) }
        return decision
    }

    /// The bandwidth-only allocation: one target per demand for `budget` bits per second, keeping
    /// the held layer at its cost and raising only with headroom. Nil budget: preferred layers.
    func allocate(budget: Int?, demands: [Demand]) -> [Int?] {
        allocation(budget: budget, demands: demands).targets
    }

    /// `allocate`, and which demands the budget cannot give their lowest layer: in order, each
    /// keeps its lowest layer at its cost, and a paused one resumes only with headroom.
    func allocation(budget: Int?, demands: [Demand]) -> (targets: [Int?], paused: [Bool]) {
        var targets: [Int?] = demands.map { Self.lowestActive($0) }
        var paused = [Bool](repeating: false, count: demands.count)
        guard let budget else {
            return (demands.map { Self.ceiling($0) }, paused)
        }
        var remaining = budget
        for (index, demand) in demands.enumerated() {
            guard let layer = targets[index] else { continue }
            let need = demand.paused ? Int((Double(cost(demand, layer)) * configuration.upgradeHeadroom).rounded(.up)) : cost(demand, layer)
            if remaining >= need {
                remaining -= cost(demand, layer)
            } else {
                paused[index] = true
            }
        }
        var changed = true
        while changed {
            changed = false
            for (index, demand) in demands.enumerated() where !paused[index] {
                guard let layer = targets[index], let cap = Self.ceiling(demand) else { continue }
                var candidate = Self.nextActive(demand, above: layer)
                while let next = candidate, next <= cap {
                    let extra = cost(demand, next) - cost(demand, layer)
                    let keeping = (demand.current ?? -1) >= next
                    let need = keeping ? extra : Int((Double(extra) * configuration.upgradeHeadroom).rounded(.up))
                    if remaining >= need {
                        targets[index] = next
                        remaining -= extra
                        changed = true
                        break
                    }
                    // On a ladder the next spatial layer at its lowest frame rate may cost less than
                    // the top frame rate of this one: it is tried too (LiveKit's order). Simulcast
                    // layers cost more the higher they are: the first that does not fit ends it.
                    candidate = demand.temporalLayers > 1 ? Self.nextActive(demand, above: next) : nil
                }
            }
        }
        return (targets, paused)
    }

    /// What a probe whose goal is `goal` sends in all, bits per second.
    static func probeRate(goal: Int, configuration c: Configuration) -> Int {
        max(Int((Double(goal) * c.probeOvershoot).rounded()), goal + c.probeMinimumExcess)
    }

    /// What sending `layer` of `demand` costs on the wire, bits per second.
    func cost(_ demand: Demand, _ layer: Int) -> Int {
        Int((Double(demand.layerBitrates[layer]) * (1 + configuration.overhead)).rounded())
    }

    // MARK: - Internals

    /// The estimate that would resume the first paused consumer on its lowest layer, else raise the
    /// first consumer held below its ceiling by one layer; nil when none is (or all such are in
    /// their hold after a downgrade or pause).
    private func probeGoal(now: Int64, signals: Signals, demands: [Demand], targets: [Int?], paused: [Bool]) -> Int? {
        var held = signals.fixed
        for (index, demand) in demands.enumerated() where !paused[index] {
            if let target = targets[index] { held += cost(demand, target) }
        }
        let holding = { (demand: Demand) in
            guard let hold = holds[demand.id], hold.lastDowngrade != .min else { return false }
            return now - hold.lastDowngrade < configuration.upgradeHoldAfterDowngrade
        }
        for (index, demand) in demands.enumerated() where paused[index] {
            guard let lowest = Self.lowestActive(demand), !holding(demand) else { continue }
            return held + Int((Double(cost(demand, lowest)) * configuration.upgradeHeadroom).rounded(.up))
        }
        for (index, demand) in demands.enumerated() where !paused[index] {
            let target = targets[index]
            guard let layer = target, let cap = Self.ceiling(demand), layer < cap,
                  let next = Self.nextActive(demand, above: layer), !holding(demand) else { continue }
            let extra = Double(cost(demand, next) - cost(demand, layer)) * configuration.upgradeHeadroom
            return held + Int(extra.rounded(.up))
        }
        return nil
    }

    private mutating func endProbe(now: Int64, succeeded: Bool, step: Bool = false) {
        probe = nil
        if succeeded {
            backoff = nil
            nextProbe = now + (step ? configuration.probeStepWait : configuration.probeBackoff)
        } else {
            let wait = backoff.map { min(configuration.maxProbeBackoff, $0 * 2) } ?? configuration.probeBackoff
            backoff = wait
            nextProbe = now + wait
        }
    }

    /// The highest active layer at or below the preferred one, else the lowest active above it.
    static func ceiling(_ demand: Demand) -> Int? {
        let rates = demand.layerBitrates
        let top = min(demand.preferred, rates.count - 1)
        if top >= 0 {
            for layer in stride(from: top, through: 0, by: -1) where rates[layer] > 0 { return layer }
        }
        return rates.indices.first { $0 > top && rates[$0] > 0 }
    }

    static func lowestActive(_ demand: Demand) -> Int? {
        demand.layerBitrates.indices.first { demand.layerBitrates[$0] > 0 }
    }

    static func nextActive(_ demand: Demand, above layer: Int) -> Int? {
        demand.layerBitrates.indices.first { $0 > layer && demand.layerBitrates[$0] > 0 }
    }
}

extension LayerAllocator.Configuration {
    /// Whether a transport-cc feedback shows congestion: queueing delay that has lasted, or
    /// loss from a queue that overflows (loss with delay growth: `queueDelay` is the rise the
    /// loss is judged with, `BandwidthEstimator.lastLossQueueDelay`). Random loss is not.
    func isCongestion(lossRate: Double, queueDelay: Int64, overusing: Bool) -> Bool {
        overusing || (lossRate >= congestionLoss && queueDelay >= congestionLossDelay)
    }
}
