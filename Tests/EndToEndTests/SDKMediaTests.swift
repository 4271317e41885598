import Foundation
import RTCMedia
@testable import SRTCCore
import SRTCLab
import SRTCTestSupport
import Synchronization
import TestWait
import Testing

/// Real media between two SDK engines through the real server: custom tracks published by one,
/// decoded by the other (frame numbers in the pixels, a tone of known frequency).
@Suite(.serialized) struct SDKMediaTests {
    static let width = 320, height = 180

    @Test func videoAndAudioPublishedByOneEngineAreDecodedByAnother() async throws {
        let server = try SDKTestServer()
        let a = SDKPeer(), b = SDKPeer()
        let subscriber = SDKAutoSubscriber()
        b.channel.delegates.add(delegate: subscriber)
        try await a.channel.join(url: server.url, token: server.token(uid: "a", channel: "m"))
        try await b.channel.join(url: server.url, token: server.token(uid: "b", channel: "m"))

        let video = a.engine.createLocalCustomVideoTrack(desc: "camera_big", preset: VideoPreset(width: Self.width, height: Self.height, frameRate: 30, maxBitrate: 500_000))
        let audio = a.engine.createLocalCustomAudioTrack(desc: "mic")
        try await a.channel.publishLocalTrack(video)
        try await a.channel.publishLocalTrack(audio)
        #expect(video.trackId != nil && video.info?.layers.map(\.desc) == ["camera_big", "camera_small"])
        try await b.events.wait(for: "track+ a camera_big")
        try await b.events.wait(for: "track+ a mic")

        let pusher = try SDKMediaPusher(video: video, audio: audio, width: Self.width, height: Self.height)
        try await eventually("3 s of media pushed") { pusher.framesPushed >= 90 }
        // Those frames reach the subscriber while the publisher goes on: stopped first, a packet lost
        // at the end could not be recovered (a key frame asked of a stopped publisher never comes).
        let pushed = pusher.framesPushed
        try await eventually("the frames pushed in 3 s decoded") { (subscriber.collector.numbers.last ?? -1) >= pushed - 1 }
        pusher.stop()

        let numbers = subscriber.collector.numbers
        let gaps = frameGaps(numbers)
        #expect(numbers.count > 60, "decoded \(numbers.count) of \(pusher.framesPushed) frames")
        #expect(gaps.ordered)
        #expect(gaps.missing <= 3, "missing \(gaps.missing) frames in \(numbers.first ?? -1)...\(numbers.last ?? -1)")
        // The best layer by default. The SFU may lower it only when the subscriber's bandwidth estimate
        // drops (a loaded machine delays packets), and then it must say so with a layer_switched event.
        let sizes = subscriber.collector.sizes
        #expect(sizes.first.map { $0 == (Self.width, Self.height) } == true)
        if !sizes.allSatisfy({ $0 == (Self.width, Self.height) }) {
            try await b.events.wait(for: "layer camera_small")
        }
        let hz = try #require(subscriber.collector.toneFrequency)
        #expect(abs(hz - 440) < 10, "tone decoded at \(hz) Hz")
        let remote = try #require(b.channel.remoteTrack(uid: "a", desc: "camera_big") as? RemoteVideoTrack)
        #expect(remote.isSubscribed && remote.framesDecoded == subscriber.collector.frameCount)
        let stats = try #require(remote.receiveStatistics)
        #expect(stats.packetsReceived > 60 && stats.framesDecoded == remote.framesDecoded)
        try await b.events.wait(for: "status camera_big timedOut=false")
        await a.channel.leave()
        await b.channel.leave()
        await server.stop()
    }

    /// On the subscribe transport's data channel (the default), or on the WebSocket without it.
    @Test(arguments: [true, false])
    func activeSpeakersAndQualityReportsReachTheDelegate(useDataChannel: Bool) async throws {
        let server = try SDKTestServer()
        let a = SDKPeer(), b = SDKPeer(useDataChannel: useDataChannel)
        let subscriber = SDKAutoSubscriber()
        b.channel.delegates.add(delegate: subscriber)
        try await a.channel.join(url: server.url, token: server.token(uid: "a", channel: "q"))
        try await b.channel.join(url: server.url, token: server.token(uid: "b", channel: "q"))
        let audio = a.engine.createLocalCustomAudioTrack(desc: "mic")
        try await a.channel.publishLocalTrack(audio)
        let pusher = try SDKMediaPusher(video: nil, audio: audio, width: 320, height: 180)
        defer { pusher.stop() }
        // The tone's RFC 6464 level makes A the active speaker for everyone.
        try await b.events.wait(for: "speakers a")
        // Quality reports come every 5 s, each to its own participant.
        try await b.events.wait(for: "quality report b")
        pusher.stop()
        try await b.events.wait(for: "speakers ") // silence: an empty snapshot
        // Each of those events came by one path: the data channel when the SDK takes it.
        let overDataChannel = b.channel.media?.subscribe.dataEventsReceived ?? 0
        if useDataChannel {
            #expect(overDataChannel >= 3)
        } else {
            #expect(overDataChannel == 0)
        }
        await a.channel.leave()
        await b.channel.leave()
        await server.stop()
    }

    @Test func receiveTimeoutFiresWhenThePublisherStopsAndRecoversWhenItResumes() async throws {
        let server = try SDKTestServer()
        let a = SDKPeer(), b = SDKPeer(receiveTimeout: 1)
        let subscriber = SDKAutoSubscriber()
        b.channel.delegates.add(delegate: subscriber)
        try await a.channel.join(url: server.url, token: server.token(uid: "a", channel: "t"))
        try await b.channel.join(url: server.url, token: server.token(uid: "b", channel: "t"))
        let video = a.engine.createLocalCustomVideoTrack(desc: "canvas", preset: VideoPreset(width: Self.width, height: Self.height, frameRate: 30, maxBitrate: 400_000))
        try await a.channel.publishLocalTrack(video)
        let pusher = try SDKMediaPusher(video: video, audio: nil, width: Self.width, height: Self.height)
        defer { pusher.stop() }
        try await b.events.wait(for: "status canvas timedOut=false")
        let remote = try #require(b.channel.remoteTrack(uid: "a", desc: "canvas") as? RemoteVideoTrack)
        #expect(!remote.isReceiveTimedOut)

        pusher.pause()
        try await b.events.wait(for: "status canvas timedOut=true")
        #expect(remote.isReceiveTimedOut)
        let before = subscriber.collector.frameCount
        pusher.resume()
        try await b.events.wait("recovery") { $0.filter { $0 == "status canvas timedOut=false" }.count == 2 }
        #expect(!remote.isReceiveTimedOut)
        #expect(subscriber.collector.frameCount > before)
        #expect(b.events.receiveStatuses.map(\.timedOut) == [false, true, false])
        #expect(b.events.receiveStatuses.allSatisfy { $0.uid == "a" && $0.trackId == remote.id })
        await a.channel.leave()
        await b.channel.leave()
        await server.stop()
    }

    /// Keeps frames with even numbers only.
    final class DropOddFrames: VideoProcessor, @unchecked Sendable {
        func processVideoFrame(_ frame: VideoFrame) -> VideoFrame? {
            guard let n = TestPatternReader.frameNumber(in: frame) else { return frame }
            return n % 2 == 0 ? frame : nil
        }
    }

    @Test func aProcessorDroppingEveryOtherFrameHalvesWhatTheSubscriberGets() async throws {
        let server = try SDKTestServer()
        let a = SDKPeer(), b = SDKPeer()
        let subscriber = SDKAutoSubscriber()
        b.channel.delegates.add(delegate: subscriber)
        try await a.channel.join(url: server.url, token: server.token(uid: "a", channel: "p"))
        try await b.channel.join(url: server.url, token: server.token(uid: "b", channel: "p"))
        let video = a.engine.createLocalCustomVideoTrack(desc: "canvas", preset: VideoPreset(width: Self.width, height: Self.height, frameRate: 30, maxBitrate: 400_000))
        video.videoProcessors = [DropOddFrames()]
        try await a.channel.publishLocalTrack(video)
        try await b.events.wait(for: "track+ a canvas")
        // Subscribed before the first frame.
        try await eventually("subscribed") { (b.channel.remoteTrack(uid: "a", desc: "canvas") as? RemoteVideoTrack)?.isSubscribed == true }
        let pusher = try SDKMediaPusher(video: video, audio: nil, width: Self.width, height: Self.height)
        try await eventually("2 s of frames pushed") { pusher.framesPushed >= 60 }
        pusher.stop()
        let pushed = pusher.framesPushed
        // The last kept (even) frames reach the subscriber.
        try await eventually("the last frames decoded") { (subscriber.collector.numbers.last ?? -1) >= pushed - 5 }
        let numbers = subscriber.collector.numbers
        #expect(numbers.allSatisfy { $0 % 2 == 0 })
        #expect(frameGaps(numbers).ordered)
        // Half of what was pushed, less a few at the start (subscription and first key frame).
        #expect(numbers.count <= pushed / 2 + 1)
        #expect(numbers.count >= pushed / 2 - 6, "got \(numbers.count) of \(pushed) pushed")
        await a.channel.leave()
        await b.channel.leave()
        await server.stop()
    }

    @Test func aPublisherWhoseSignalingDropsReconnectsWhileMediaKeepsFlowing() async throws {
        let server = try SDKTestServer()
        let proxy = try SDKTestProxy(to: server.port)
        defer { proxy.stop() }
        let a = SDKPeer(), b = SDKPeer()
        let subscriber = SDKAutoSubscriber()
        b.channel.delegates.add(delegate: subscriber)
        try await a.channel.join(url: proxy.url, token: server.token(uid: "a", channel: "r"))
        try await b.channel.join(url: server.url, token: server.token(uid: "b", channel: "r"))
        let video = a.engine.createLocalCustomVideoTrack(desc: "canvas", preset: VideoPreset(width: Self.width, height: Self.height, frameRate: 30, maxBitrate: 400_000))
        try await a.channel.publishLocalTrack(video)
        let pusher = try SDKMediaPusher(video: video, audio: nil, width: Self.width, height: Self.height)
        defer { pusher.stop() }
        try await eventually("first frames") { subscriber.collector.frameCount > 10 }

        proxy.setRefusing(true)
        proxy.dropAll()
        try await a.events.wait(for: "reconnecting")
        let during = subscriber.collector.frameCount
        // The media path does not go through the signaling connection: frames still arrive.
        try await eventually("frames while reconnecting") { subscriber.collector.frameCount > during + 10 }
        #expect(a.channel.connectionState == .reconnecting)
        proxy.setRefusing(false)
        try await a.events.wait(for: "reconnected")
        let after = subscriber.collector.frameCount
        try await eventually("frames after the resume") { subscriber.collector.frameCount > after + 20 }
        #expect(!b.events.events.contains { $0.hasPrefix("user- a") || $0.hasPrefix("track- a") })
        // Signaling works again: a mute reaches B.
        await video.mute()
        try await b.events.wait(for: "track~ a canvas muted=true")
        let gaps = frameGaps(subscriber.collector.numbers)
        #expect(gaps.ordered)
        await a.channel.leave()
        await b.channel.leave()
        await server.stop()
    }

    @Test func switchingToTheSmallLayerChangesTheDecodedSize() async throws {
        let server = try SDKTestServer()
        let a = SDKPeer(), b = SDKPeer()
        let subscriber = SDKAutoSubscriber(layer: .cameraBig)
        b.channel.delegates.add(delegate: subscriber)
        try await a.channel.join(url: server.url, token: server.token(uid: "a", channel: "s"))
        try await b.channel.join(url: server.url, token: server.token(uid: "b", channel: "s"))
        let video = a.engine.createLocalCustomVideoTrack(desc: "camera_big", preset: VideoPreset(width: 640, height: 360, frameRate: 30, maxBitrate: 800_000))
        try await a.channel.publishLocalTrack(video)
        let pusher = try SDKMediaPusher(video: video, audio: nil, width: 640, height: 360)
        defer { pusher.stop() }
        try await eventually("big frames") { subscriber.collector.sizes.contains { $0 == (640, 360) } }
        let remote = try #require(b.channel.remoteTrack(uid: "a", desc: "camera_big") as? RemoteVideoTrack)
        try await b.channel.switchLayer(remote, to: .cameraSmall)
        try await b.events.wait(for: "layer camera_small")
        try await eventually("small frames") { subscriber.collector.sizes.last.map { $0 == (160, 90) } ?? false }
        #expect(remote.currentLayer == "camera_small")
        // The switch happens on the small layer's key frame, which may be the same picture as the
        // last big frame: numbers never go back, and the same number appears at most twice.
        let numbers = subscriber.collector.numbers
        #expect(numbers == numbers.sorted())
        #expect(Dictionary(grouping: numbers, by: { $0 }).values.allSatisfy { $0.count <= 2 })
        await a.channel.leave()
        await b.channel.leave()
        await server.stop()
    }
}

/// Track life cycle through the real server: bind, mute/unmute, unpublish, publish again; and the
/// engine's render processor on the receive path.
@Suite(.serialized) struct SDKTrackLifecycleTests {
    final class TrackEvents: TrackDelegate, @unchecked Sendable {
        let log = Mutex<[String]>([])
        func trackDidBindRtcTrack(_ track: Track) { log.withLock { $0.append("bound") } }
        func trackDidMute(_ track: Track) { log.withLock { $0.append("muted") } }
        func trackDidUnmute(_ track: Track) { log.withLock { $0.append("unmuted") } }
        func trackDidEnd(_ track: Track) { log.withLock { $0.append("ended") } }
        var events: [String] { log.withLock { $0 } }
    }

    @Test func muteUnpublishAndRepublishReachTheSubscriber() async throws {
        let server = try SDKTestServer()
        let a = SDKPeer(), b = SDKPeer(receiveTimeout: 1)
        let subscriber = SDKAutoSubscriber()
        b.channel.delegates.add(delegate: subscriber)
        try await a.channel.join(url: server.url, token: server.token(uid: "a", channel: "life"))
        try await b.channel.join(url: server.url, token: server.token(uid: "b", channel: "life"))
        let video = a.engine.createLocalCustomVideoTrack(desc: "canvas", preset: VideoPreset(width: 320, height: 180, frameRate: 30, maxBitrate: 400_000))
        let localEvents = TrackEvents()
        video.delegates.add(delegate: localEvents)
        try await a.channel.publishLocalTrack(video)
        #expect(video.isPublished && a.channel.localTracks.count == 1)
        let pusher = try SDKMediaPusher(video: video, audio: nil, width: 320, height: 180)
        defer { pusher.stop() }
        try await b.events.wait(for: "status canvas timedOut=false")
        let remote = try #require(b.channel.remoteTrack(uid: "a", desc: "canvas") as? RemoteVideoTrack)
        let remoteEvents = TrackEvents()
        remote.delegates.add(delegate: remoteEvents)

        await video.mute()
        try await b.events.wait(for: "track~ a canvas muted=true")
        try await eventually("remote mute") { remoteEvents.events.contains("muted") }
        #expect(remote.isMuted)
        // Not a wait for a condition: the time is the subject. Longer than the receive timeout (1 s),
        // during which a muted track must not time out.
        try await Task.sleep(for: .milliseconds(1_500))
        #expect(!b.events.receiveStatuses.contains { $0.timedOut })
        let whileMuted = subscriber.collector.frameCount
        await video.unmute()
        try await b.events.wait(for: "track~ a canvas muted=false")
        try await eventually("frames after unmute") { subscriber.collector.frameCount > whileMuted + 10 }
        #expect(b.events.receiveStatuses.map(\.timedOut) == [false, false]) // the first frame after unmute reports again

        try await a.channel.unpublishLocalTrack(video)
        try await b.events.wait(for: "track- a canvas")
        try await eventually("remote end") { remoteEvents.events.contains("ended") }
        #expect(b.channel.remoteTrack(trackId: remote.id) == nil)
        #expect(!video.isPublished && a.channel.localTracks.isEmpty)

        try await a.channel.publishLocalTrack(video)
        try await b.events.wait { $0.filter { $0 == "track+ a canvas" }.count == 2 }
        let again = subscriber.collector.frameCount
        try await eventually("frames after republishing") { subscriber.collector.frameCount > again + 10 }
        #expect(localEvents.events.filter { $0 == "bound" }.count == 2)
        #expect(localEvents.events.contains("muted") && localEvents.events.contains("unmuted"))
        await a.channel.leave()
        await b.channel.leave()
        await server.stop()
    }

    @Test func unsubscribingThenSubscribingAnotherTrackReusesTheSection() async throws {
        let server = try SDKTestServer()
        let a = SDKPeer(), b = SDKPeer()
        try await a.channel.join(url: server.url, token: server.token(uid: "a", channel: "reuse"))
        try await b.channel.join(url: server.url, token: server.token(uid: "b", channel: "reuse"))
        let one = a.engine.createLocalCustomVideoTrack(desc: "one", preset: VideoPreset(width: 320, height: 180, frameRate: 30, maxBitrate: 300_000))
        let two = a.engine.createLocalCustomVideoTrack(desc: "two", preset: VideoPreset(width: 160, height: 90, frameRate: 30, maxBitrate: 200_000))
        try await a.channel.publishLocalTrack(one)
        try await a.channel.publishLocalTrack(two)
        let pushOne = try SDKMediaPusher(video: one, audio: nil, width: 320, height: 180)
        let pushTwo = try SDKMediaPusher(video: two, audio: nil, width: 160, height: 90)
        defer { pushOne.stop(); pushTwo.stop() }
        try await b.events.wait(for: "track+ a two")
        let remoteOne = try #require(b.channel.remoteTrack(uid: "a", desc: "one") as? RemoteVideoTrack)
        let remoteTwo = try #require(b.channel.remoteTrack(uid: "a", desc: "two") as? RemoteVideoTrack)
        let first = SDKMediaCollector(), second = SDKMediaCollector()
        remoteOne.add(videoRenderer: first)
        remoteTwo.add(videoRenderer: second)

        try await b.channel.subscribe(remoteOne)
        try await eventually("track one") { first.frameCount > 10 }
        try await b.channel.unsubscribe(remoteOne)
        #expect(!remoteOne.isSubscribed)
        // Frames decoded before the unsubscribe took effect are rendered, then no more.
        try await waitUntilSettled("track one's last frames") { first.frameCount }
        let oneCount = first.frameCount
        try await b.channel.subscribe(remoteTwo)
        try await eventually("track two") { second.frameCount > 10 }
        #expect(second.sizes.allSatisfy { $0 == (160, 90) })
        #expect(first.frameCount <= oneCount + 2) // track one stopped (a frame in flight at most)
        await a.channel.leave()
        await b.channel.leave()
        await server.stop()
    }

    final class Silencer: AudioProcessor, @unchecked Sendable {
        let formats = Mutex<[String]>([])
        func audioProcessingInitialize(sampleRate sampleRateHz: Int, channels: Int) { formats.withLock { $0.append("\(sampleRateHz)/\(channels)") } }
        func audioProcessingProcess(audioBuffer: SRTCCore.AudioBuffer) {
            audioBuffer.withChannel(0) { samples in for i in samples.indices { samples[i] = 0 } }
        }
    }

    @Test func theRenderProcessorRunsBeforeAudioRenderers() async throws {
        let server = try SDKTestServer()
        let a = SDKPeer(), b = SDKPeer()
        let silencer = Silencer()
        b.engine.audioRenderProcessor = silencer
        let subscriber = SDKAutoSubscriber()
        b.channel.delegates.add(delegate: subscriber)
        try await a.channel.join(url: server.url, token: server.token(uid: "a", channel: "rp"))
        try await b.channel.join(url: server.url, token: server.token(uid: "b", channel: "rp"))
        let audio = a.engine.createLocalCustomAudioTrack(desc: "mic")
        try await a.channel.publishLocalTrack(audio)
        let pusher = try SDKMediaPusher(video: nil, audio: audio, width: 320, height: 180)
        defer { pusher.stop() }
        try await eventually("audio") { subscriber.collector.samples.count > 48_000 }
        #expect(subscriber.collector.samples.allSatisfy { $0 == 0 })
        #expect(silencer.formats.withLock { $0 } == ["48000/1"])
        await a.channel.leave()
        await b.channel.leave()
        await server.stop()
    }
}
