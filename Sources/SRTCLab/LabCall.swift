import Foundation
import RTCMedia
import SRTCCore
import SRTCProtocol
import SRTCTestSupport
import TestWait

/// One call through the network lab (docs/network.md): `srtc-server` in a namespace of its own,
/// an SDK publisher (simulcast 640×360 + 160×90 at up to 691 kbit/s, as `srtc join --desc
/// camera_big` announces, or the 640×360 stream alone, and Opus) and an SDK subscriber asking for `camera_big`, both in this
/// namespace, everything they exchange crossing the link's veth pair. The observer records what
/// the subscriber decodes and is told, with when, for the scenario tests to check and print.
// @unchecked Sendable: every stored property is set in init and not changed after (`sampler`, `pusher`, `publishedAudio` included: set in init before the call is handed out).
public final class LabCall: @unchecked Sendable {
    public let lab = NetworkLab()
    public let link: NetworkLab.Link
    /// The subscriber's own address on the outside of the link (`NetworkLab.addOutsideAddress`):
    /// loss toward it leaves the publisher's path alone.
    public let subscriberAddress: String
    public let server: ServerProcess
    public let publisher: Channel
    public let subscriber: Channel
    public let observer = LabObserver(readsFrameNumbers: true)
    /// What the publisher is told (another user leaving, for instance).
    public let publisherEvents = LabObserver()
    private let engines: [SRTCEngine]
    /// The publisher's audio track (its `sendStatistics`: the FEC its encoder plans).
    public private(set) var publishedAudio: LocalCustomAudioTrack?
    private var pusher: SDKMediaPusher?
    private var sampler: Task<Void, Never>?
    /// The relay the subscriber's media passes (`subscriberThroughRelay`), shaped with `relay.shape`.
    public private(set) var relay: NetworkLab.Relay?

    /// - Parameter subscriberRedundantAudio: whether the subscriber offers RED (RFC 2198) for
    ///   audio (`SRTCEngine.Configuration.redundantAudio`).
    /// - Parameter publisherRedundantAudio: the same for the publisher (off: it sends plain Opus).
    /// - Parameter subscriberAudioNACK: whether the subscriber asks for lost audio by NACK.
    /// - Parameter publisherInbandFEC: whether the publisher offers Opus in-band FEC
    ///   (`SRTCEngine.Configuration.opusInbandFEC`).
    /// - Parameter video: whether the publisher publishes its camera too (off: audio alone).
    /// - Parameter simulcast: whether the camera goes as simulcast (off: one 640×360 stream, a
    ///   track without `layers`).
    /// - Parameter audioClip: mono PCM the publisher sends in a loop instead of its tone.
    /// - Parameter subscriberThroughRelay: the subscriber's media passes the lab's userspace link
    ///   in the server's namespace (`relay`, `NetworkLab.addRelay`), for loss in bursts, delay
    ///   and reordering.
    public init(subscriberRedundantAudio: Bool = true, publisherRedundantAudio: Bool = true, subscriberAudioNACK: Bool = true,
         publisherInbandFEC: Bool = true, video publishesVideo: Bool = true, simulcast: Bool = true, audioClip: (samples: [Int16], sampleRate: Int)? = nil,
         subscriberThroughRelay: Bool = false) async throws {
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
            if subscriberThroughRelay {
                relay = try lab.addRelay(on: link, serverPorts: [server.udpPort], source: subscriberAddress)
            }
            try await publisher.join(url: server.httpBase, token: Self.token(uid: "a", channel: "lab"))
            try await subscriber.join(url: server.httpBase, token: Self.token(uid: "b", channel: "lab"))
            let video = publishesVideo
                ? a.createLocalCustomVideoTrack(desc: "camera_big", preset: VideoPreset(width: 640, height: 360, frameRate: 30, maxBitrate: 691_200),
                                                simulcast: simulcast)
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
    public var framesPushed: Int { pusher?.framesPushed ?? 0 }

    /// How long each video frame decoded between `from` and `to` (observer seconds) took from the
    /// publisher's push to the subscriber's decoder, in ms, in decoding order: encoding, pacing,
    /// the link's queue, the jitter buffer and decoding (both ends in this process, one clock).
    public func videoDelays(from: Double, to: Double) -> [Double] {
        var seen = Set<Int>()
        return observer.numbers.compactMap { decoded in
            guard decoded.time >= from, decoded.time <= to, seen.insert(decoded.number).inserted,
                  let pushed = pusher?.pushUptime(ofFrame: decoded.number) else { return nil }
            let decodedAt = Double(observer.start) + decoded.time * 1e9
            return (decodedAt - Double(pushed)) / 1e6
        }
    }

    /// Ends the call and removes the lab (call it in a `defer`-like path: also after a failure).
    public func end() async {
        sampler?.cancel()
        pusher?.stop()
        await publisher.leave()
        await subscriber.leave()
        await server.stop()
        lab.remove()
    }

    /// Waits for 640×360 frames: the call is up on its big layer.
    public func waitForBigFrames() async throws {
        try await eventually(timeout: 15, "big frames") { observer.lastSize(since: 0).map { $0 == (640, 360) } ?? false }
    }

    /// Limits what the server sends to the clients (the downlink) with tbf; nil removes the limit.
    public func limitDownlink(_ rate: Int?) throws {
        if let rate {
            try lab.limit(link, side: .inside, rate: rate, burstBytes: 8192, latencyMilliseconds: 200)
        } else {
            try lab.unlimit(link, side: .inside)
        }
    }

    /// Loses datagrams the server sends to the subscriber (nil: none), in the kernel
    /// (`NetworkLab.setLoss`).
    public func loseDownlink(_ loss: NetworkLab.Loss?) throws {
        try lab.setLoss(loss, on: link, toward: subscriberAddress)
    }

    /// The tbf's counters on the server's side (sent, dropped, backlog), one line.
    public var downlinkQueue: String {
        lab.queueStatistics(link, side: .inside).split(separator: "\n").dropFirst().first
            .map { $0.trimmingCharacters(in: .whitespaces) } ?? "-"
    }

    public static func token(uid: String, channel: String) -> String {
        let now = Int64(Date().timeIntervalSince1970)
        return AccessToken.sign(TokenClaims(iss: TestServer.appId, sub: uid, iat: now, nbf: now, exp: now + 3600, jti: UUID().uuidString,
                                            grant: ChannelGrant(channel: channel, publish: true, subscribe: true, publishData: true)),
                                key: TestServer.appKey)
    }

    public static func engine(bindAddress: String, redundantAudio: Bool = true, audioNACK: Bool = true, inbandFEC: Bool = true) -> SRTCEngine {
        // Two engines in one test process: independent of the process-wide engine (seed 000's rule).
        var configuration = SRTCEngine.Configuration(delegateQueue: DispatchQueue(label: "lab-peer-events"), logLevel: .off,
                                                     receiveTimeout: 3, mediaBindAddress: bindAddress)
        configuration.redundantAudio = redundantAudio
        configuration.audioNACK = audioNACK
        configuration.opusInbandFEC = inbandFEC
        return SRTCEngine(independent: configuration)
    }
}

/// Runs `body` on a new lab call and ends the call whether it passed or threw.
public func withLabCall(subscriberRedundantAudio: Bool = true, _ body: (LabCall) async throws -> Void) async throws {
    try await ending(try await LabCall(subscriberRedundantAudio: subscriberRedundantAudio), body)
}

/// Runs `body` on `call` and ends the call whether it passed or threw; `body`'s result.
public func ending<T>(_ call: LabCall, _ body: (LabCall) async throws -> T) async throws -> T {
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
public func fmt(_ value: Double) -> String { String(format: "%.2f", value) }
