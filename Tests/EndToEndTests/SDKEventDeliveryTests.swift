import Foundation
import RTCMedia
import RTCNet
import SRTC
import SRTCLab
import SRTCTestSupport
import Synchronization
import TestWait
import Testing

/// Events and engine-wide processing the seed pages promise (issue 28, item 12), each through the
/// real server: `didChangeConnectionQuality`, a remote track's `trackDidBindRtcTrack` and
/// `track(_:didUpdateInfo:)`, `Channel.destroy()`, `audioCaptureProcessor` heard by another
/// participant, and the render module on what a subscriber decodes.
@Suite struct SDKEventDeliveryTests {
    /// Records a track's `TrackDelegate` events as lines.
    final class TrackEvents: TrackDelegate, @unchecked Sendable {
        private let store = Mutex<[String]>([])
        var lines: [String] { store.withLock { $0 } }
        func track(_ track: Track, didUpdateInfo info: TrackInfo) { store.withLock { $0.append("info muted=\(info.muted)") } }
        func trackDidMute(_ track: Track) { store.withLock { $0.append("mute") } }
        func trackDidUnmute(_ track: Track) { store.withLock { $0.append("unmute") } }
        func trackDidEnd(_ track: Track) { store.withLock { $0.append("end") } }
        func trackDidBindRtcTrack(_ track: Track) { store.withLock { $0.append("bind") } }
    }

    @Test func aParticipantsConnectionQualityChangeReachesTheDelegate() async throws {
        let server = try SDKTestServer { $0.media.qualityIntervalSeconds = 0.25 }
        let watcher = SDKPeer()
        try await watcher.channel.join(url: server.url, token: server.token(uid: "watcher", channel: "quality"))
        // A publisher whose path to the server loses every second RTP packet: its level falls to poor.
        let relay = try LossyRelay(server: try #require(SocketAddress(ip: "127.0.0.1", port: server.app.udpPort)))
        let sent = Atomic(0)
        relay.drop.set { bytes in LossyRelay.rtpHeader(bytes) != nil && sent.add(1, ordering: .relaxed).newValue % 2 == 0 }
        let alice = try await MediaTestClient(server: server, uid: "alice", channel: "quality")
        alice.publishRelay = relay
        _ = try await alice.publish(video: [])
        let publisher = try MediaTestPublisher(client: alice, video: [])
        // Media flows while waiting (the publisher sends in real time), 60 s at most: here the
        // server grades the loss after about 20 s.
        for _ in 0..<120 where !watcher.events.events.contains("quality alice excellent->poor") {
            try await publisher.run(seconds: 0.5)
        }
        #expect(watcher.events.events.contains("quality alice excellent->poor"), "\(watcher.events.events.filter { $0.hasPrefix("quality alice") })")
        alice.close()
        relay.stop()
        await watcher.channel.leave()
        await server.stop()
    }

    @Test func aRemoteTrackBindsAndFollowsItsPublishersMute() async throws {
        let server = try SDKTestServer()
        let a = SDKPeer(), b = SDKPeer()
        try await a.channel.join(url: server.url, token: server.token(uid: "a", channel: "bind"))
        try await b.channel.join(url: server.url, token: server.token(uid: "b", channel: "bind"))
        let audio = a.engine.createLocalCustomAudioTrack(desc: "mic")
        let local = TrackEvents()
        audio.delegates.add(delegate: local)
        try await a.channel.publishLocalTrack(audio)
        try await eventually("the local track binds on publishing") { local.lines.contains("bind") }
        let pusher = try SDKMediaPusher(video: nil, audio: audio, width: 320, height: 180)
        defer { pusher.stop() }

        let remote = try #require(await b.channel.remoteTrack(uid: "a", desc: "mic", waitingUpTo: .seconds(10)))
        let events = TrackEvents()
        remote.delegates.add(delegate: events)
        #expect(!events.lines.contains("bind"), "no receiver before subscribing")
        try await b.channel.subscribe(remote)
        try await eventually("the remote track binds once its receiver exists: \(events.lines)") { events.lines.contains("bind") }
        #expect(events.lines.filter { $0 == "bind" }.count == 1)

        await audio.mute()
        try await eventually("didUpdateInfo with the mute, then trackDidMute: \(events.lines)") {
            events.lines.contains("info muted=true") && events.lines.contains("mute")
        }
        #expect(remote.isMuted && remote.info?.muted == true)
        await audio.unmute()
        try await eventually("unmuted: \(events.lines)") { events.lines.contains("info muted=false") && events.lines.contains("unmute") }
        #expect(events.lines.firstIndex(of: "info muted=true")! < events.lines.firstIndex(of: "mute")!)

        try await a.channel.unpublishLocalTrack(audio)
        try await eventually("the remote track ends") { events.lines.contains("end") }
        await a.channel.leave(); await b.channel.leave()
        await server.stop()
    }

    /// Records whether channel events run on the main queue: the main queue carries a marker
    /// (`setSpecific`), read back in each callback. (Not `Thread.isMainThread`: a process that
    /// called `dispatchMain()` has the main queue drained by a worker thread.)
    final class QueueProbe: ChannelDelegate, @unchecked Sendable {
        static let marker = DispatchSpecificKey<String>()
        private let store = Mutex<[(String, Bool)]>([])
        var seen: [(String, Bool)] { store.withLock { $0 } }
        private func record(_ event: String) {
            let onMain = DispatchQueue.getSpecific(key: Self.marker) == "main"
            store.withLock { $0.append((event, onMain)) }
        }
        func channel(_ channel: Channel, didJoinSucceed info: ChannelInfo) { record("joined") }
        func channel(_ channel: Channel, userDidJoin user: UserInfo) { record("user+ \(user.uid)") }
    }

    /// The page's default: events on the main queue (the configuration's default queue).
    @Test func eventsArriveOnTheMainQueueByDefault() async throws {
        let server = try SDKTestServer()
        DispatchQueue.main.setSpecific(key: QueueProbe.marker, value: "main")
        let engine = SRTCEngine(independent: .init(logLevel: .off, mediaBindAddress: "127.0.0.1"))
        #expect(engine.configuration.delegateQueue.getSpecific(key: QueueProbe.marker) == "main", "the default queue is .main")
        let channel = try engine.createChannel()
        let probe = QueueProbe()
        channel.delegates.add(delegate: probe)
        let other = SDKPeer()
        try await channel.join(url: server.url, token: server.token(uid: "main", channel: "queue"))
        try await other.channel.join(url: server.url, token: server.token(uid: "other", channel: "queue"))
        try await eventually("joined and user+ delivered: \(probe.seen)") { probe.seen.count >= 2 }
        #expect(probe.seen.map(\.0) == ["joined", "user+ other"])
        let onMain = probe.seen.map(\.1)
        #expect(!onMain.contains(false), "every event on the main thread: \(probe.seen)")
        await other.channel.leave()
        await engine.destroy()
        await server.stop()
    }

    @Test func destroyingAChannelLeavesItForGood() async throws {
        let server = try SDKTestServer()
        let a = SDKPeer(), b = SDKPeer()
        try await a.channel.join(url: server.url, token: server.token(uid: "a", channel: "destroy"))
        try await b.channel.join(url: server.url, token: server.token(uid: "b", channel: "destroy"))
        try await b.events.wait(for: "user+ a")
        #expect(a.engine.getChannels().count == 1)

        await a.channel.destroy()
        #expect(a.channel.connectionState == .disconnected && a.engine.getChannels().isEmpty)
        try await a.events.wait(for: "disconnected client_leave")
        try await b.events.wait { $0.contains { $0.hasPrefix("user- a") } }
        await #expect(throws: SRTCError.engineDestroyed) {
            try await a.channel.join(url: server.url, token: server.token(uid: "a", channel: "destroy"))
        }
        // The engine goes on: another channel joins.
        let again = try a.engine.createChannel()
        try await again.join(url: server.url, token: server.token(uid: "a", channel: "destroy"))
        try await b.events.wait { $0.filter { $0 == "user+ a" }.count == 2 }
        await again.leave(); await b.channel.leave()
        await server.stop()
    }

    /// Replaces what it is given by a 1 kHz tone: what the other side hears tells whether it ran.
    final class ToneProcessor: AudioProcessor, @unchecked Sendable {
        private let state = Mutex((phase: 0.0, sampleRate: 0, channels: 0, processed: 0))
        var initialized: (Int, Int) { state.withLock { ($0.sampleRate, $0.channels) } }
        var processed: Int { state.withLock { $0.processed } }
        func audioProcessingInitialize(sampleRate sampleRateHz: Int, channels: Int) {
            state.withLock { $0.sampleRate = sampleRateHz; $0.channels = channels }
        }
        func audioProcessingProcess(audioBuffer: SRTC.AudioBuffer) {
            state.withLock { s in
                audioBuffer.withChannel(0) { samples in
                    for i in samples.indices {
                        samples[i] = Float(0.4 * sin(s.phase))
                        s.phase += 2 * Double.pi * 1_000 / Double(audioBuffer.sampleRate)
                    }
                }
                s.phase = s.phase.truncatingRemainder(dividingBy: 2 * Double.pi)
                s.processed += 1
            }
        }
    }

    @Test func theEnginesCaptureProcessorIsWhatTheOtherSideHears() async throws {
        let server = try SDKTestServer()
        let a = SDKPeer(), b = SDKPeer()
        let processor = ToneProcessor()
        a.engine.audioCaptureProcessor = processor
        let heard = SDKAutoSubscriber()
        b.channel.delegates.add(delegate: heard)
        try await a.channel.join(url: server.url, token: server.token(uid: "a", channel: "processor"))
        try await b.channel.join(url: server.url, token: server.token(uid: "b", channel: "processor"))
        let audio = a.engine.createLocalCustomAudioTrack(desc: "mic")
        try await a.channel.publishLocalTrack(audio)
        let pusher = try SDKMediaPusher(video: nil, audio: audio, width: 320, height: 180, toneHz: 440)
        defer { pusher.stop() }
        try await eventually(timeout: 15, "two seconds of audio heard") { heard.collector.samples.count >= 96_000 }
        let frequency = try #require(heard.collector.toneFrequency)
        #expect(abs(frequency - 1_000) < 30, "heard \(frequency) Hz: the 440 Hz pushed, replaced by the processor's 1 kHz")
        #expect(processor.initialized == (48_000, 1) && processor.processed > 50)
        await a.channel.leave(); await b.channel.leave()
        await server.stop()
    }

    /// Mean distance of the chroma planes from grey (128): 0 for a picture without colour.
    static func chromaDistance(_ frame: VideoFrame) -> Double {
        let picture = frame.buffer.toI420()
        var total = 0, count = 0
        for plane in 1...2 {
            picture.withPlane(plane) { chroma in
                for value in chroma { total += abs(Int(value) - 128) }
                count += chroma.count
            }
        }
        return Double(total) / Double(max(count, 1))
    }

    /// Keeps the chroma distance of each decoded frame.
    final class ChromaMeter: VideoRenderer, @unchecked Sendable {
        private let values = Mutex<[Double]>([])
        var all: [Double] { values.withLock { $0 } }
        func render(frame: VideoFrame) {
            let distance = SDKEventDeliveryTests.chromaDistance(frame)
            values.withLock { $0.append(distance) }
        }
    }

    @Test func theRenderModuleShapesWhatTheChannelSends() async throws {
        let server = try SDKTestServer()
        let a = SDKPeer(), b = SDKPeer()
        let meter = ChromaMeter()
        try await a.channel.join(url: server.url, token: server.token(uid: "a", channel: "render"))
        try await b.channel.join(url: server.url, token: server.token(uid: "b", channel: "render"))
        let preset = VideoPreset(width: 320, height: 180, frameRate: 30, maxBitrate: 600_000)
        let camera = a.engine.createLocalCustomVideoTrack(desc: "camera_big", preset: preset)
        try await a.channel.publishLocalTrack(camera)
        let pusher = try SDKMediaPusher(video: camera, audio: nil, width: preset.width, height: preset.height)
        defer { pusher.stop() }
        let remote = try #require(await b.channel.remoteTrack(uid: "a", desc: "camera_big", waitingUpTo: .seconds(10)) as? RemoteVideoTrack)
        remote.add(videoRenderer: meter)
        try await b.channel.subscribe(remote, layer: .cameraBig)
        try await eventually("colour frames decoded") { meter.all.count > 15 }
        let colour = meter.all.suffix(10).reduce(0, +) / 10
        #expect(colour > 10, "the test pattern has colour: \(colour)")

        // The render module's `mono` filter at full strength, the other levels at 0: grey frames.
        try a.engine.installRenderModule()
        a.engine.setBlurLevel(0); a.engine.setWhiteLevel(0); a.engine.setRedLevel(0); a.engine.setSharpenLevel(0)
        a.engine.setFilterName("mono"); a.engine.setFilterLevel(1)
        try a.engine.enabledBeauty(true)
        let from = meter.all.count
        try await eventually(timeout: 15, "grey frames decoded") { meter.all.count > from + 30 && meter.all.suffix(10).allSatisfy { $0 < 3 } }

        // Off again: colour comes back.
        try a.engine.enabledBeauty(false)
        try await eventually(timeout: 15, "colour again") { meter.all.suffix(5).allSatisfy { $0 > 10 } }
        await a.channel.leave(); await b.channel.leave()
        await server.stop()
    }
}
