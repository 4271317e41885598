import Foundation
import RTCMedia
@testable import SRTC
import SRTCProtocol
import SRTCTestSupport
import Synchronization
import TestWait
import Testing

/// Layer adaptation through a real kernel bottleneck (docs/network.md): the server in a network
/// namespace of its own, an SDK publisher (simulcast 640×360 + 160×90) and an SDK subscriber
/// asking for `camera_big` in this one, everything they exchange crossing a veth pair whose
/// server side a `tc` tbf limits. Unlimited, then 250 kbit/s, then unlimited again.
@Suite(.serialized, .enabled(if: NetworkLab.isAvailable, "needs root for ip netns"))
struct NetworkLabLayerTests {
    /// Frames the subscriber decoded and the layer switches it was told of, with when.
    final class Observer: ChannelDelegate, VideoRenderer, @unchecked Sendable {
        let start = DispatchTime.now().uptimeNanoseconds
        private let framesStore = Mutex<[(time: Double, width: Int, height: Int)]>([])
        private let switchesStore = Mutex<[(time: Double, layer: String, cause: String)]>([])

        var elapsed: Double { Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }
        var frames: [(time: Double, width: Int, height: Int)] { framesStore.withLock { $0 } }
        var switches: [(time: Double, layer: String, cause: String)] { switchesStore.withLock { $0 } }

        func render(frame: VideoFrame) {
            let now = elapsed
            framesStore.withLock { $0.append((now, frame.width, frame.height)) }
        }

        func channel(_ channel: Channel, didSwitchLayer info: LayerSwitchedInfo) {
            let now = elapsed
            switchesStore.withLock { $0.append((now, info.layer, info.cause)) }
        }

        func channel(_ channel: Channel, user: UserInfo, didAddTrack track: TrackInfo) {
            guard let remote = channel.remoteTrack(trackId: track.id) else { return }
            (remote as? RemoteVideoTrack)?.add(videoRenderer: self)
            Task { try? await channel.subscribe(remote, layer: track.kind == .video ? .cameraBig : nil) }
        }

        /// The size of the last frame decoded at or after `time`.
        func lastSize(since time: Double) -> (Int, Int)? {
            frames.last { $0.time >= time }.map { ($0.width, $0.height) }
        }
    }

    static func token(uid: String, channel: String) -> String {
        let now = Int64(Date().timeIntervalSince1970)
        return AccessToken.sign(TokenClaims(iss: TestServer.appId, sub: uid, iat: now, nbf: now, exp: now + 3600, jti: UUID().uuidString,
                                            grant: ChannelGrant(channel: channel, publish: true, subscribe: true, publishData: true)),
                                key: TestServer.appKey)
    }

    static func engine(bindAddress: String) -> SRTCEngine {
        SRTCEngine(independent: .init(delegateQueue: DispatchQueue(label: "lab-peer-events"), logLevel: .off, receiveTimeout: 3,
                                        mediaBindAddress: bindAddress))
    }

    @Test func aSubscriberKeepsTheBigLayerGoesDownUnder250kbitAndComesBack() async throws {
        let lab = NetworkLab()
        defer { lab.remove() }
        let link = try lab.addNamespace()
        let server = ServerProcess(arguments: ["--app-id", TestServer.appId, "--app-key", TestServer.appKey],
                                   namespace: link.namespace, host: link.insideAddress)
        try await server.start()
        let a = Self.engine(bindAddress: link.outsideAddress), b = Self.engine(bindAddress: link.outsideAddress)
        let publisher = try a.createChannel(), subscriber = try b.createChannel()
        let observer = Observer()
        subscriber.delegates.add(delegate: observer)
        try await publisher.join(url: server.httpBase, token: Self.token(uid: "a", channel: "lab"))
        try await subscriber.join(url: server.httpBase, token: Self.token(uid: "b", channel: "lab"))
        let video = a.createLocalCustomVideoTrack(desc: "camera_big", preset: VideoPreset(width: 640, height: 360, frameRate: 30, maxBitrate: 691_200))
        let audio = a.createLocalCustomAudioTrack(desc: "mic")
        try await publisher.publishLocalTrack(video)
        try await publisher.publishLocalTrack(audio)
        let pusher = try SDKMediaPusher(video: video, audio: audio, width: 640, height: 360)
        defer { pusher.stop() }

        // Unlimited: the big layer throughout, no switch for bandwidth.
        try await eventually(timeout: 15, "big frames") { observer.lastSize(since: 0).map { $0 == (640, 360) } ?? false }
        let unlimitedStart = observer.elapsed
        try await Task.sleep(for: .seconds(Self.unlimitedSeconds))
        let firstPhase = observer.switches.filter { $0.cause == "bandwidth" }
        #expect(firstPhase.isEmpty, "switched for bandwidth on an unlimited link: \(firstPhase)")
        let bigFrames = observer.frames.filter { $0.time >= unlimitedStart && $0.width == 640 }.count
        #expect(bigFrames >= Int(Self.unlimitedSeconds) * 15, "\(bigFrames) big frames in \(Self.unlimitedSeconds) s")

        // 250 kbit/s toward the subscriber: down to the small layer.
        let limitedAt = observer.elapsed
        try lab.limit(link, side: .inside, rate: 250_000, burstBytes: 8192, latencyMilliseconds: 200)
        try await eventually(timeout: 10, "switched down to camera_small") {
            observer.switches.contains { $0.time >= limitedAt && $0.layer == TrackDescName.cameraSmall && $0.cause == "bandwidth" }
        }
        let down = try #require(observer.switches.first { $0.time >= limitedAt && $0.layer == TrackDescName.cameraSmall })
        try await eventually(timeout: 10, "small frames") { observer.lastSize(since: down.time).map { $0 == (160, 90) } ?? false }
        let remaining = Self.limitedSeconds - (observer.elapsed - limitedAt)
        if remaining > 0 { try await Task.sleep(for: .seconds(remaining)) }
        let queue = lab.queueStatistics(link, side: .inside)

        // Unlimited again: back to the big layer.
        let restoredAt = observer.elapsed
        try lab.unlimit(link, side: .inside)
        try await eventually(timeout: 25, "switched back to camera_big") {
            observer.switches.contains { $0.time >= restoredAt && $0.layer == TrackDescName.cameraBig && $0.cause == "bandwidth" }
        }
        let up = try #require(observer.switches.first { $0.time >= restoredAt && $0.layer == TrackDescName.cameraBig })
        try await eventually(timeout: 10, "big frames again") { observer.lastSize(since: up.time).map { $0 == (640, 360) } ?? false }
        let bigAgain = try #require(observer.frames.first { $0.time >= restoredAt && $0.width == 640 })

        print("""
            network lab: unlimited \(Self.unlimitedSeconds) s: \(bigFrames) frames of 640×360, \(firstPhase.count) bandwidth switches
              250 kbit/s: layer_switched camera_small \(String(format: "%.2f", down.time - limitedAt)) s after the limit
              unlimited again: layer_switched camera_big \(String(format: "%.2f", up.time - restoredAt)) s after, first 640×360 frame \(String(format: "%.2f", bigAgain.time - restoredAt)) s after
              switches: \(observer.switches.map { "\(String(format: "%.1f", $0.time)) \($0.layer) (\($0.cause))" }.joined(separator: ", "))
              tbf: \(queue.split(separator: "\n").dropFirst().first.map { $0.trimmingCharacters(in: .whitespaces) } ?? "-")
            """)
        pusher.stop()
        await publisher.leave()
        await subscriber.leave()
        await server.stop()
    }

    static let unlimitedSeconds = 12.0
    static let limitedSeconds = 10.0

    @Test func theLabRemovesWhatItMade() throws {
        let lab = NetworkLab()
        let link = try lab.addNamespace()
        #expect(NetworkLab.existingNamespaces().contains(link.namespace))
        try lab.limit(link, side: .inside, rate: 250_000)
        #expect(lab.queueStatistics(link, side: .inside).contains("tbf"))
        lab.remove()
        #expect(!NetworkLab.existingNamespaces().contains(link.namespace))
    }
}
