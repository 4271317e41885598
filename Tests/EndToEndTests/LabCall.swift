import Foundation
import RTCMedia
@testable import SRTCCore
import SRTCProtocol
import SRTCTestSupport
import Synchronization
import TestWait
import Testing

/// One call through the network lab (docs/network.md): `srtc-server` in a namespace of its own,
/// an SDK publisher (simulcast 640×360 + 160×90 at up to 691 kbit/s, as `srtc join --desc
/// camera_big` announces, and Opus) and an SDK subscriber asking for `camera_big`, both in this
/// namespace, everything they exchange crossing the link's veth pair. The observer records what
/// the subscriber decodes and is told, with when, for the scenario tests to check and print.
final class LabCall: @unchecked Sendable {
    let lab = NetworkLab()
    let link: NetworkLab.Link
    /// The subscriber's own address on the outside of the link (`NetworkLab.addOutsideAddress`):
    /// loss toward it leaves the publisher's path alone.
    let subscriberAddress: String
    let server: ServerProcess
    let publisher: Channel
    let subscriber: Channel
    let observer = LabObserver(readsFrameNumbers: true)
    /// What the publisher is told (another user leaving, for instance).
    let publisherEvents = LabObserver()
    private let engines: [SRTCEngine]
    /// The publisher's audio track (its `sendStatistics`: the FEC its encoder plans).
    private(set) var publishedAudio: LocalCustomAudioTrack?
    private var pusher: SDKMediaPusher?
    private var sampler: Task<Void, Never>?

    /// - Parameter subscriberRedundantAudio: whether the subscriber offers RED (RFC 2198) for
    ///   audio (`SRTCEngine.Configuration.redundantAudio`).
    /// - Parameter publisherRedundantAudio: the same for the publisher (off: it sends plain Opus).
    /// - Parameter subscriberAudioNACK: whether the subscriber asks for lost audio by NACK.
    /// - Parameter publisherInbandFEC: whether the publisher offers Opus in-band FEC
    ///   (`SRTCEngine.Configuration.opusInbandFEC`).
    /// - Parameter video: whether the publisher publishes its camera too (off: audio alone).
    /// - Parameter audioClip: mono PCM the publisher sends in a loop instead of its tone.
    init(subscriberRedundantAudio: Bool = true, publisherRedundantAudio: Bool = true, subscriberAudioNACK: Bool = true,
         publisherInbandFEC: Bool = true, video publishesVideo: Bool = true, audioClip: (samples: [Int16], sampleRate: Int)? = nil) async throws {
        link = try lab.addNamespace()
        subscriberAddress = try lab.addOutsideAddress(link)
        server = ServerProcess(arguments: ["--app-id", TestServer.appId, "--app-key", TestServer.appKey],
                               namespace: link.namespace, host: link.insideAddress)
        let a = Self.engine(bindAddress: link.outsideAddress, redundantAudio: publisherRedundantAudio, inbandFEC: publisherInbandFEC)
        let b = Self.engine(bindAddress: subscriberAddress, redundantAudio: subscriberRedundantAudio, audioNACK: subscriberAudioNACK)
        engines = [a, b]
        publisher = try a.createChannel()
        subscriber = try b.createChannel()
        subscriber.delegates.add(delegate: observer)
        publisher.delegates.add(delegate: publisherEvents)
        do {
            try await server.start()
            try await publisher.join(url: server.httpBase, token: Self.token(uid: "a", channel: "lab"))
            try await subscriber.join(url: server.httpBase, token: Self.token(uid: "b", channel: "lab"))
            let video = publishesVideo
                ? a.createLocalCustomVideoTrack(desc: "camera_big", preset: VideoPreset(width: 640, height: 360, frameRate: 30, maxBitrate: 691_200))
                : nil
            let audio = a.createLocalCustomAudioTrack(desc: "mic")
            if let video { try await publisher.publishLocalTrack(video) }
            try await publisher.publishLocalTrack(audio)
            publishedAudio = audio
            pusher = try SDKMediaPusher(video: video, audio: audio, width: 640, height: 360, clip: audioClip)
        } catch {
            lab.remove()
            throw error
        }
        let observer = self.observer
        sampler = Task {
            while !Task.isCancelled {
                observer.sampleAudio()
                try? await Task.sleep(for: .milliseconds(250))
            }
        }
    }

    /// Frames the publisher pushed so far; a frame's test-pattern number is its index.
    var framesPushed: Int { pusher?.framesPushed ?? 0 }

    /// Ends the call and removes the lab (call it in a `defer`-like path: also after a failure).
    func end() async {
        sampler?.cancel()
        pusher?.stop()
        await publisher.leave()
        await subscriber.leave()
        await server.stop()
        lab.remove()
    }

    /// Waits for 640×360 frames: the call is up on its big layer.
    func waitForBigFrames() async throws {
        try await eventually(timeout: 15, "big frames") { observer.lastSize(since: 0).map { $0 == (640, 360) } ?? false }
    }

    /// Limits what the server sends to the clients (the downlink) with tbf; nil removes the limit.
    func limitDownlink(_ rate: Int?) throws {
        if let rate {
            try lab.limit(link, side: .inside, rate: rate, burstBytes: 8192, latencyMilliseconds: 200)
        } else {
            try lab.unlimit(link, side: .inside)
        }
    }

    /// Loses datagrams the server sends to the subscriber (nil: none), in the kernel
    /// (`NetworkLab.setLoss`).
    func loseDownlink(_ loss: NetworkLab.Loss?) throws {
        try lab.setLoss(loss, on: link, toward: subscriberAddress)
    }

    /// The tbf's counters on the server's side (sent, dropped, backlog), one line.
    var downlinkQueue: String {
        lab.queueStatistics(link, side: .inside).split(separator: "\n").dropFirst().first
            .map { $0.trimmingCharacters(in: .whitespaces) } ?? "-"
    }

    static func token(uid: String, channel: String) -> String {
        let now = Int64(Date().timeIntervalSince1970)
        return AccessToken.sign(TokenClaims(iss: TestServer.appId, sub: uid, iat: now, nbf: now, exp: now + 3600, jti: UUID().uuidString,
                                            grant: ChannelGrant(channel: channel, publish: true, subscribe: true, publishData: true)),
                                key: TestServer.appKey)
    }

    static func engine(bindAddress: String, redundantAudio: Bool = true, audioNACK: Bool = true, inbandFEC: Bool = true) -> SRTCEngine {
        // Two engines in one test process: independent of the process-wide engine (seed 000's rule).
        var configuration = SRTCEngine.Configuration(delegateQueue: DispatchQueue(label: "lab-peer-events"), logLevel: .off,
                                                     receiveTimeout: 3, mediaBindAddress: bindAddress)
        configuration.redundantAudio = redundantAudio
        configuration.audioNACK = audioNACK
        configuration.opusInbandFEC = inbandFEC
        return SRTCEngine(independent: configuration)
    }
}

/// What one participant of a lab call decodes and is told, each with its time (s since made).
final class LabObserver: ChannelDelegate, VideoRenderer, EncodedFrameRenderer, @unchecked Sendable {
    struct Switch: Sendable, CustomStringConvertible {
        var time: Double
        var layer: String
        var previous: String?
        var cause: String
        var description: String { "\(String(format: "%.1f", time)) \(layer) (\(cause))" }
    }

    let start = DispatchTime.now().uptimeNanoseconds
    /// Whether each frame's test-pattern number is read (`numbers`).
    private let readsFrameNumbers: Bool
    private let framesStore = Mutex<[(time: Double, width: Int, height: Int)]>([])
    private let numbersStore = Mutex<[(time: Double, number: Int)]>([])
    private let switchesStore = Mutex<[Switch]>([])
    private let audioStore = Mutex<[(time: Double, packets: Int, lost: Int, bytes: Int)]>([])
    private let playoutStore = Mutex<[(time: Double, played: Int, concealed: Int, recovered: Int, recoveredByRED: Int,
                                       recoveredByFEC: Int)]>([])
    /// Opus packets played, and of those the ones that carried LBRR (in-band FEC for the packet
    /// before, RFC 6716 §2.1.7), as the audio track's encoded renderer saw them.
    private let opusStore = Mutex((packets: 0, withLBRR: 0))
    private let membershipStore = Mutex<[(time: Double, event: String)]>([])
    private let audioTrack = Mutex<RemoteAudioTrack?>(nil)

    var elapsed: Double { Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }
    var frames: [(time: Double, width: Int, height: Int)] { framesStore.withLock { $0 } }
    /// The test-pattern number of each frame decoded (when made with `readsFrameNumbers`).
    var numbers: [(time: Double, number: Int)] { numbersStore.withLock { $0 } }
    var switches: [Switch] { switchesStore.withLock { $0 } }
    /// `left <uid>` / `joined <uid>` as the channel told them, with when.
    var membership: [(time: Double, event: String)] { membershipStore.withLock { $0 } }

    init(readsFrameNumbers: Bool = false) {
        self.readsFrameNumbers = readsFrameNumbers
    }

    func render(frame: VideoFrame) {
        let now = elapsed
        framesStore.withLock { $0.append((now, frame.width, frame.height)) }
        if readsFrameNumbers, let number = TestPatternReader.frameNumber(in: frame) {
            numbersStore.withLock { $0.append((now, number)) }
        }
    }

    func render(encodedFrame: EncodedMediaFrame) {
        guard encodedFrame.kind == .audio else { return }
        let lbrr = encodedFrame.data.withUnsafeBytes { OpusPacketInfo.hasLBRR($0) }
        opusStore.withLock { $0.packets += 1; if lbrr { $0.withLBRR += 1 } }
    }

    func channel(_ channel: Channel, didSwitchLayer info: LayerSwitchedInfo) {
        let now = elapsed
        switchesStore.withLock { $0.append(Switch(time: now, layer: info.layer, previous: info.previous, cause: info.cause)) }
    }

    func channel(_ channel: Channel, userDidJoin user: UserInfo) {
        let now = elapsed
        membershipStore.withLock { $0.append((now, "joined \(user.uid)")) }
    }

    func channel(_ channel: Channel, userDidLeave uid: String, reason: DisconnectReason) {
        let now = elapsed
        membershipStore.withLock { $0.append((now, "left \(uid)")) }
    }

    func channel(_ channel: Channel, user: UserInfo, didAddTrack track: TrackInfo) {
        guard let remote = channel.remoteTrack(trackId: track.id) else { return }
        (remote as? RemoteVideoTrack)?.add(videoRenderer: self)
        if let audio = remote as? RemoteAudioTrack {
            audioTrack.withLock { $0 = audio }
            audio.add(encodedFrameRenderer: self)
        }
        Task { try? await channel.subscribe(remote, layer: track.kind == .video ? .cameraBig : nil) }
    }

    /// Records the audio track's packet count now (the call's sampler runs it every 250 ms).
    func sampleAudio() {
        guard let statistics = audioTrack.withLock({ $0 })?.receiveStatistics else { return }
        let now = elapsed
        audioStore.withLock { $0.append((now, statistics.packetsReceived, statistics.packetsLost, statistics.bytesReceived)) }
        if let playout = audioTrack.withLock({ $0 })?.playoutCounters {
            playoutStore.withLock {
                $0.append((now, playout.statistics.played, playout.statistics.concealed, playout.recovered, playout.recoveredByRED,
                           playout.recoveredByFEC))
            }
        }
    }

    /// What the audio playout did between `from` and `to`: packets played, 20 ms ticks concealed
    /// (a lost packet, FEC or PLC), and lost packets a NACK brought back in time and a RED block
    /// rebuilt (each would have been concealed without it).
    func audioPlayout(from: Double, to: Double) -> (played: Int, concealed: Int, recovered: Int, recoveredByRED: Int) {
        let playout = audioPlayoutWithFEC(from: from, to: to)
        return (playout.played, playout.concealed, playout.recovered, playout.recoveredByRED)
    }

    /// `audioPlayout`, and of the ticks concealed those rebuilt from the next packet's in-band FEC.
    func audioPlayoutWithFEC(from: Double, to: Double) -> (played: Int, concealed: Int, recovered: Int, recoveredByRED: Int,
                                                          recoveredByFEC: Int) {
        let samples = playoutStore.withLock { $0 }.filter { $0.time >= from && $0.time <= to }
        guard let first = samples.first, let last = samples.last else { return (0, 0, 0, 0, 0) }
        return (last.played - first.played, last.concealed - first.concealed, last.recovered - first.recovered,
                last.recoveredByRED - first.recoveredByRED, last.recoveredByFEC - first.recoveredByFEC)
    }

    /// Opus packets played so far, and how many of them carried LBRR.
    var opusPackets: (packets: Int, withLBRR: Int) { opusStore.withLock { $0 } }

    /// Audio RTP bytes received (whole packets, headers included) between `from` and `to`.
    func audioBytes(from: Double, to: Double) -> Int {
        let samples = audioStore.withLock { $0 }.filter { $0.time >= from && $0.time <= to }
        guard let first = samples.first, let last = samples.last else { return 0 }
        return last.bytes - first.bytes
    }

    // MARK: - Figures

    /// The size of the last frame decoded at or after `time`.
    func lastSize(since time: Double) -> (Int, Int)? {
        frames.last { $0.time >= time }.map { ($0.width, $0.height) }
    }

    /// The first switch at or after `time` that matches.
    func firstSwitch(since time: Double, layer: String, cause: String = "bandwidth") -> Switch? {
        switches.first { $0.time >= time && $0.layer == layer && $0.cause == cause }
    }

    /// Waits for a switch for bandwidth to `layer` at or after `time`, then for frames of `width`
    /// decoded after it; returns the switch and the first such frame's time.
    func switched(since time: Double, to layer: String, width: Int, timeout: Double) async throws -> (switch: Switch, firstFrame: Double) {
        try await eventually(timeout: timeout, "switched to \(layer)") { firstSwitch(since: time, layer: layer) != nil }
        let change = try #require(firstSwitch(since: time, layer: layer))
        try await eventually(timeout: 10, "frames \(width) wide") { frames.last { $0.time >= change.time }?.width == width }
        let first = try #require(frames.first { $0.time >= time && $0.width == width })
        return (change, first.time)
    }

    /// Audio packets a second over each 1 s window between `from` and `to` (windows slide by
    /// the sampler's 250 ms; a window's rate uses the times measured, not the nominal ones).
    func audioRates(from: Double, to: Double) -> [Double] {
        let samples = audioStore.withLock { $0 }.filter { $0.time >= from && $0.time <= to }
        var rates: [Double] = []
        for (index, first) in samples.enumerated() {
            guard let last = samples[index...].first(where: { $0.time - first.time >= 1.0 }) else { break }
            rates.append(Double(last.packets - first.packets) / (last.time - first.time))
        }
        return rates
    }

    /// Audio packets a second in each whole second from `from` (not sliding: one figure a second).
    func audioRatesPerSecond(from: Double, to: Double) -> [Double] {
        let samples = audioStore.withLock { $0 }
        var rates: [Double] = []
        var start = from
        while start + 1 <= to {
            guard let first = samples.first(where: { $0.time >= start }),
                  let last = samples.first(where: { $0.time >= start + 1 }), last.time > first.time else { break }
            rates.append(Double(last.packets - first.packets) / (last.time - first.time))
            start += 1
        }
        return rates
    }

    /// Audio packets the receiver counted lost (not recovered) between `from` and `to`.
    func audioLost(from: Double, to: Double) -> Int {
        let samples = audioStore.withLock { $0 }.filter { $0.time >= from && $0.time <= to }
        guard let first = samples.first, let last = samples.last else { return 0 }
        return last.lost - first.lost
    }

    /// Audio packets received between `from` and `to` (the samples nearest inside).
    func audioPackets(from: Double, to: Double) -> Int {
        let samples = audioStore.withLock { $0 }.filter { $0.time >= from && $0.time <= to }
        guard let first = samples.first, let last = samples.last else { return 0 }
        return last.packets - first.packets
    }

    /// The longest time without a decoded frame between `from` and `to`, s.
    func worstVideoGap(from: Double, to: Double) -> Double {
        var times = frames.map(\.time).filter { $0 >= from && $0 <= to }
        times.insert(from, at: 0)
        times.append(to)
        return zip(times, times.dropFirst()).map { $1 - $0 }.max() ?? (to - from)
    }

    /// Frames decoded between `from` and `to` of the given width (nil: any).
    func frameCount(from: Double, to: Double, width: Int? = nil) -> Int {
        frames.filter { $0.time >= from && $0.time <= to && (width == nil || $0.width == width) }.count
    }
}

/// Runs `body` on a new lab call and ends the call whether it passed or threw.
func withLabCall(subscriberRedundantAudio: Bool = true, _ body: (LabCall) async throws -> Void) async throws {
    try await ending(try await LabCall(subscriberRedundantAudio: subscriberRedundantAudio), body)
}

/// Runs `body` on `call` and ends the call whether it passed or threw; `body`'s result.
func ending<T>(_ call: LabCall, _ body: (LabCall) async throws -> T) async throws -> T {
    do {
        let result = try await body(call)
        await call.end()
        return result
    } catch {
        await call.end()
        throw error
    }
}

/// "1.23" for a figure printed by a lab test.
func fmt(_ value: Double) -> String { String(format: "%.2f", value) }
