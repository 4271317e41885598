import Foundation
import Processes
import RTCMedia
@testable import SRTCCore
import SRTCLab
import SRTCProtocol
import SRTCTestSupport
import Synchronization
import TestWait
import Testing

/// A lab call with a client whose own network changes (docs/network.md, "Addresses that change"):
/// `srtc-server` in a namespace, an in-process SDK peer (uid `a`) in this one, and a mobile client
/// (uid `m`): `srtc join` (the Swift SDK in a process of its own) in a client namespace joined
/// straight to the server's (`NetworkLab.addClientNamespace`), so the lab can change its address or
/// take its link down. Both publish a numbered test pattern (320×180, 15 fps, simulcast) and a tone
/// and subscribe to each other's: the peer reads the mobile's frame numbers from what it decodes,
/// the mobile prints the peer's (`pattern #N`) every 0.1 s.
final class LabMobileCall: @unchecked Sendable {
    static let mobileFirstNumber = 100_000

    let lab = NetworkLab()
    let link: NetworkLab.Link
    let client: NetworkLab.ClientLink
    let server: ServerProcess
    let peer: Channel
    /// What the peer decodes of the mobile's video (with frame numbers) and is told.
    let observer = LabObserver(readsFrameNumbers: true)
    private(set) var mobile: LabMobileClient!
    /// With `relayed`: a coturn in the server's namespace, which the mobile sends all its media
    /// through (`--ice-transport-policy relay`).
    private(set) var coturn: TestCoturn?
    private let engine: SRTCEngine
    private var pusher: SDKMediaPusher?

    init(relayed: Bool = false) async throws {
        link = try lab.addNamespace()
        var serverArguments = ["--app-id", TestServer.appId, "--app-key", TestServer.appKey]
        do {
            client = try lab.addClientNamespace(reaching: link)
            if relayed {
                let coturn = try await TestCoturn(address: link.insideAddress, namespace: link.namespace)
                self.coturn = coturn
                serverArguments += ["--turn-urls", "turn:\(link.insideAddress):\(coturn.port)?transport=udp", "--turn-secret", coturn.secret]
            }
        } catch {
            await coturn?.stop()
            lab.remove()
            throw error
        }
        server = ServerProcess(arguments: serverArguments, namespace: link.namespace, host: link.insideAddress)
        engine = LabCall.engine(bindAddress: link.outsideAddress)
        peer = try engine.createChannel()
        peer.delegates.add(delegate: observer)
        do {
            try await server.start()
            try await peer.join(url: server.httpBase, token: LabCall.token(uid: "a", channel: "lab"))
            let video = engine.createLocalCustomVideoTrack(desc: TrackDescName.cameraBig,
                                                           preset: VideoPreset(width: 320, height: 180, frameRate: 15, maxBitrate: 300_000))
            let audio = engine.createLocalCustomAudioTrack(desc: TrackDescName.mic)
            try await peer.publishLocalTrack(video)
            try await peer.publishLocalTrack(audio)
            pusher = try SDKMediaPusher(video: video, audio: audio, width: 320, height: 180, fps: 15)
            mobile = try LabMobileClient(link: client, url: server.httpBase, token: LabCall.token(uid: "m", channel: "lab"), clock: observer,
                                         arguments: relayed ? ["--ice-transport-policy", "relay"] : [])
        } catch {
            await end()
            throw error
        }
    }

    /// Ends the call and removes the lab (also after a failure).
    func end() async {
        pusher?.stop()
        await mobile?.stop()
        await peer.leave()
        await server.stop()
        await coturn?.stop()
        lab.remove()
    }

    /// Waits until media flows both ways: the peer decodes the mobile's frames and the mobile the peer's.
    func waitForMediaBothWays() async throws {
        try await eventually(timeout: 20, "the peer decodes the mobile's frames") { observer.numbers.count >= 15 }
        try await eventually(timeout: 20, "the mobile decodes the peer's frames") { mobile.peerNumbers.count >= 5 }
    }

    /// Waits until both directions have made `frames` frames of progress after `time`.
    func waitForProgress(after time: Double, frames: Int, timeout: Double) async throws {
        let before = (observer.numbers.last { $0.time <= time }?.number ?? 0, mobile.peerNumbers.last { $0.time <= time }?.number ?? 0)
        try await eventually(timeout: timeout, "the peer decodes the mobile's frames again") {
            (observer.numbers.last?.number ?? 0) >= before.0 + frames
        }
        try await eventually(timeout: timeout, "the mobile decodes the peer's frames again") {
            (mobile.peerNumbers.last?.number ?? 0) >= before.1 + frames
        }
    }
}

/// The mobile client: `srtc join` in the client namespace, what it prints kept with when (read by
/// a thread of its own until the program's output closes).
final class LabMobileClient: Sendable {
    private let process: ChildProcess
    private let lines = Mutex<[(time: Double, text: String)]>([])

    init(link: NetworkLab.ClientLink, url: String, token: String, clock: LabObserver, arguments extra: [String] = []) throws {
        let srtc = (ServerProcess.binaryPath as NSString).deletingLastPathComponent + "/srtc"
        let arguments = link.command([srtc, "join", "--url", url, "--token", token, "--size", "320x180", "--fps", "15",
                                      "--pattern-start", String(LabMobileCall.mobileFirstNumber), "--layer", "camera_big",
                                      "--stats-interval", "0.1"] + extra)
        process = try ChildProcess(arguments[0], Array(arguments.dropFirst()), pipeOutput: true, standardError: .output)
        guard let output = process.output else { return }
        let reader = Thread { [weak self] in
            var partial = ""
            while true {
                let data = output.availableData
                if data.isEmpty { break }
                let now = clock.elapsed
                partial += String(decoding: data, as: UTF8.self)
                var parts = partial.components(separatedBy: "\n")
                partial = parts.removeLast()
                self?.lines.withLock { $0 += parts.map { (now, $0) } }
            }
        }
        reader.name = "lab-mobile-output"
        reader.start()
    }

    deinit {
        process.signal(SIGKILL)
    }

    /// Everything it printed, with when (s on the call's clock).
    var output: [(time: Double, text: String)] { lines.withLock { $0 } }

    /// The peer's frame numbers in its status lines (`a/camera_big: … pattern #N`).
    var peerNumbers: [(time: Double, number: Int)] {
        output.compactMap { line in
            guard line.text.contains("a/camera_big:"), let range = line.text.range(of: "pattern #") else { return nil }
            return Int(line.text[range.upperBound...].prefix { $0.isNumber }).map { (line.time, $0) }
        }
    }

    /// Its event lines (`[hh:mm:ss.mmm] …`): joins, leaves, reconnections.
    var events: [(time: Double, text: String)] { output.filter { $0.text.hasPrefix("[") } }

    /// Leaves (SIGTERM) and waits for the program to end.
    func stop() async {
        await process.stop()
    }
}

/// Frames of progress in a series of frame numbers: the times at which a number higher than every
/// one before it arrived.
func progressTimes(_ samples: [(time: Double, number: Int)]) -> [Double] {
    var highest = Int.min
    return samples.compactMap { sample in
        guard sample.number > highest else { return nil }
        highest = sample.number
        return sample.time
    }
}

/// The longest stretch without progress between `from` and `to`: when it began and ended.
func longestStall(_ samples: [(time: Double, number: Int)], from: Double, to: Double) -> (start: Double, end: Double) {
    let times = [from] + progressTimes(samples).filter { $0 > from && $0 <= to } + [to]
    let pairs = zip(times, times.dropFirst())
    return pairs.max { $0.1 - $0.0 < $1.1 - $1.0 }.map { (start: $0.0, end: $0.1) } ?? (from, to)
}
