import Foundation
import SRTCLab
import SRTCLoad
import SRTCProtocol
import SRTCTestSupport

/// The network lab's scenarios that apply to Janus VideoRoom as well as to ours, run on each
/// (`LabServerCall`: the same clients, the same path, the same relay): loss toward the subscriber
/// — 5 % at random, then 10 % in bursts of 10, the shapes of the lab's relay test — after a clean
/// phase, and the link down for 10 s, then up. Janus adapts no subscriber's layer, so the
/// adaptation rows stay ours alone (`runLabBenchmarks`).
enum LabServerComparison {
    /// The path through the relay each way: 20 ms, and no jitter: the load subscriber NACKs a gap
    /// the moment the packet after it arrives, so a reordered packet would read as a NACK
    /// answered (the lab's relay test adds 5 ms of jitter; its loss shapes are these).
    static let path = LinkShaper.Shape(delayMilliseconds: 20)
    static let phaseSeconds = 10.0

    /// What the subscriber got over one phase.
    struct Phase: Sendable {
        var name: String
        /// Datagrams toward the subscriber the relay lost, of those it was offered.
        var relayLost = 0, relayOffered = 0
        var frames = 0
        var worstGap = 0.0
        var video = Counts()
        var audio = Counts()
    }

    /// One stream kind's counters over a phase (differences of `LoadReceivedStream.Statistics`).
    struct Counts: Sendable {
        var expected = 0, received = 0, lost = 0, nacked = 0, recovered = 0, plis = 0

        init() {}

        init(_ streams: [LoadReceivedStream.Statistics], kind: TrackKind) {
            for stream in streams where stream.kind == kind {
                expected += stream.expected
                received += stream.received
                lost += stream.lost
                nacked += stream.nackedPackets
                recovered += stream.recovered
                plis += stream.plisSent
            }
        }

        func minus(_ other: Counts) -> Counts {
            var result = Counts()
            result.expected = expected - other.expected
            result.received = received - other.received
            result.lost = lost - other.lost
            result.nacked = nacked - other.nacked
            result.recovered = recovered - other.recovered
            result.plis = plis - other.plis
            return result
        }
    }

    /// The link down 10 s, then up.
    struct Outage: Sendable {
        /// Seconds from the link's return to the first RTP packet, and to the first complete frame.
        var firstPacket: Double?
        var firstFrame: Double?
        /// Over the 3 s after the first packet: complete frames and audio packets per second, and
        /// whether the subscribe transport still counts as connected (no new join was made).
        var framesPerSecond = 0.0
        var audioPerSecond = 0.0
        var connected = false
    }

    struct Figures: Sendable {
        var phases: [Phase] = []
        var outage = Outage()
    }

    /// Runs the scenarios on `server`.
    static func measure(_ server: LabServerCall.Server) async throws -> Figures {
        let call = try await LabServerCall.start(server)
        // Ended whether the scenarios ran through or threw: the lab's namespaces go with it.
        let result: Result<Figures, any Error>
        do { result = .success(try await measure(call)) } catch { result = .failure(error) }
        await call.end()
        return try result.get()
    }

    private static func measure(_ call: LabServerCall) async throws -> Figures {
        var figures = Figures()
        try await Task.sleep(for: .seconds(4))  // past our allocator's startup grace, as the lab's test
        let shapes: [(String, LinkShaper.Shape)] = [
            ("no loss", path),
            ("5 % random", LinkShaper.Shape(lossRate: 0.05, delayMilliseconds: 20)),
            ("10 % bursts of 10", LinkShaper.Shape(delayMilliseconds: 20, burstLength: 10, burstPeriod: 100)),
        ]
        for (name, shape) in shapes {
            try call.relay.shape(downlink: shape, uplink: path)
            let from = LoadClock.now()
            let before = await call.streams()
            try await Task.sleep(for: .seconds(phaseSeconds))
            let after = await call.streams()
            let to = LoadClock.now()
            let counters = try call.relay.counters().downlink
            try call.relay.shape(downlink: path, uplink: path)
            let frames = LabFrames(await call.videoPackets())
            var phase = Phase(name: name)
            phase.relayLost = counters.lost
            phase.relayOffered = counters.offered
            phase.frames = frames.count(from: from, to: to)
            phase.worstGap = frames.worstGap(from: from, to: to)
            phase.video = Counts(after, kind: .video).minus(Counts(before, kind: .video))
            phase.audio = Counts(after, kind: .audio).minus(Counts(before, kind: .audio))
            figures.phases.append(phase)
            try await Task.sleep(for: .seconds(2))  // the path clean between phases
        }
        figures.outage = try await outage(call)
        return figures
    }

    private static func outage(_ call: LabServerCall) async throws -> Outage {
        try call.lab.setLink(call.link, up: false)
        try await Task.sleep(for: .seconds(10))
        let counted = call.packetsReceived
        let upAt = LoadClock.now()
        try call.lab.setLink(call.link, up: true)
        var outage = Outage()
        while LoadClock.now() - upAt < 20_000_000 {
            if call.packetsReceived > counted {
                outage.firstPacket = Double(LoadClock.now() - upAt) / 1e6
                break
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        guard let firstPacket = outage.firstPacket else { return outage }
        let from = upAt + Int64(firstPacket * 1e6)
        let before = Counts(await call.streams(), kind: .audio)
        try await Task.sleep(for: .seconds(3))
        let audio = Counts(await call.streams(), kind: .audio).minus(before)
        let to = LoadClock.now()
        let frames = LabFrames(await call.videoPackets())
        outage.firstFrame = frames.first(after: upAt).map { Double($0 - upAt) / 1e6 }
        outage.framesPerSecond = Double(frames.count(from: from, to: to)) / (Double(to - from) / 1e6)
        outage.audioPerSecond = Double(audio.received) / (Double(to - from) / 1e6)
        outage.connected = call.subscriber?.connected.load(ordering: .acquiring) ?? false
        return outage
    }

    // MARK: - Table

    /// Prints ours beside Janus (nil: not run, with `janusNote` saying why), one row per figure.
    static func printTable(ours: Figures, janus: Figures?, janusNote: String) {
        let width = 66, column = 30
        func row(_ name: String, _ value: (Figures) -> String) {
            let line = "  " + name.padding(toLength: width, withPad: " ", startingAt: 0)
                + value(ours).padding(toLength: column, withPad: " ", startingAt: 0) + (janus.map(value) ?? "–")
            print(line)
        }
        print("  " + "".padding(toLength: width, withPad: " ", startingAt: 0) + "ours".padding(toLength: column, withPad: " ", startingAt: 0) + "janus")
        for (index, phase) in ours.phases.enumerated() {
            let name = phase.name
            func at(_ figures: Figures) -> Phase? { figures.phases.indices.contains(index) ? figures.phases[index] : nil }
            row("\(name): relay lost toward the subscriber") { at($0).map { "\($0.relayLost) of \($0.relayOffered)" } ?? "-" }
            row("\(name): complete frames/s, worst gap") {
                at($0).map { "\(fmt(Double($0.frames) / phaseSeconds)), \(fmt($0.worstGap)) s" } ?? "-"
            }
            row("\(name): video never arrived / NACKed / resent, PLIs") {
                at($0).map { "\($0.video.lost) / \($0.video.nacked) / \($0.video.recovered), \($0.video.plis)" } ?? "-"
            }
            row("\(name): audio never arrived / resent (of sent)") {
                at($0).map { "\($0.audio.lost) / \($0.audio.recovered) (\($0.audio.expected))" } ?? "-"
            }
        }
        row("link down 10 s, up: first packet (first frame)") { figures in
            figures.outage.firstPacket.map { "\(fmt($0)) s (\(figures.outage.firstFrame.map { fmt($0) + " s" } ?? "none"))" } ?? "none in 20 s"
        }
        row("link up: frames/s, audio packets/s, still connected") {
            "\(fmt($0.outage.framesPerSecond)), \(fmt($0.outage.audioPerSecond)), \($0.outage.connected ? "yes" : "no")"
        }
        if janus == nil { print("  janus: \(janusNote)") }
    }
}
