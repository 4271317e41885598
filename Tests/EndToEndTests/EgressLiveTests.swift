import Foundation
import Processes
import MediaTestSupport
import RTCMedia
import RTCNet
import SRTC
import SRTCLab
import SRTCTestSupport
import TestWait
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Live output end to end: HLS served by the server and played by the SDK's CDN engine, and an
/// RTMP push received by Debian's ffmpeg.
@Suite(.serialized) struct EgressLiveTests {
    /// A publisher and a 320×180 composite of it (one source fills the picture).
    static func compositeOfOne(_ server: EgressTestServer, channel: String) async throws -> (EgressPeer, SDKMediaPusher) {
        let (publisher, pusher) = try await EgressRecordingTests.publisher(server, uid: "alice", channel: channel)
        let (status, json) = try await server.call("/server/v1/channel/composite/start",
                                                   ["channel": channel, "uid": "mcu", "width": 320, "height": 180, "frame_rate": 15])
        #expect(status == 200, "\(json)")
        return (publisher, pusher)
    }

    static func get(_ url: String) async throws -> (Int, [UInt8]) {
        let response = try await HTTPClient().get(url)
        return (response.status, response.body)
    }

    @Test func hlsAdvancesItsSegmentsAreH264AndAACAndTheCDNEnginePlaysIt() async throws {
        let hooks = try TestWebhookReceiver()
        let server = try EgressTestServer(webhookURL: hooks.url)
        let (publisher, pusher) = try await Self.compositeOfOne(server, channel: "show")
        let (status, json) = try await server.call("/server/v1/channel/live/start", ["channel": "show", "uid": "mcu"])
        let live = try #require((json["composite"] as? [String: Any])?["live"] as? [String: Any], "\(status) \(json)")
        #expect(live["status"] as? String == "live")
        let path = try #require(live["hls_url"] as? String)
        #expect(path == "/live/\(TestServer.appId)/show/index.m3u8")

        // The playlist slides: its media sequence grows while the segments stay few.
        func playlist() async -> (sequence: Int, segments: [String]) {
            guard let (code, body) = try? await Self.get(server.url + path), code == 200 else { return (-1, []) }
            let text = String(decoding: body, as: UTF8.self)
            let sequence = text.split(separator: "\n").first { $0.hasPrefix("#EXT-X-MEDIA-SEQUENCE:") }.flatMap { Int($0.dropFirst(22)) } ?? -1
            return (sequence, text.split(separator: "\n").filter { $0.hasSuffix(".ts") }.map(String.init))
        }
        try await eventually("two segments") { await playlist().segments.count >= 2 }
        let first = await playlist()
        try await eventually("the playlist advancing") { await playlist().sequence > first.sequence }
        let segment = try #require(await playlist().segments.last)
        let (code, bytes) = try await Self.get(server.url + path.replacingOccurrences(of: "index.m3u8", with: segment))
        #expect(code == 200 && bytes.count > 1_000)
        let file = server.directory.file("segment.ts")
        _ = FileManager.default.createFile(atPath: file, contents: Data(bytes))
        #expect(try await offPool { try MediaProbe(file) }.codecs.sorted() == ["aac", "h264"])

        // The CDN engine plays it: one user, two tracks, advancing frame numbers and the tone.
        let viewer = EgressPeer(engine: .cdn)
        let subscriber = SDKAutoSubscriber()
        viewer.channel.delegates.add(delegate: subscriber)
        let info = try await viewer.channel.play(url: server.url + path)
        #expect(info.channel == "show")
        try await viewer.events.wait(for: "track+ stream camera_big")
        try await viewer.events.wait(for: "track+ stream mic")
        try await eventually("frames from the stream") { subscriber.collector.numbers.count >= 30 }
        let numbers = subscriber.collector.numbers
        #expect(nonDecreasing(numbers) && numbers.last! > numbers.first!)
        let hz = try #require(subscriber.collector.toneFrequency)
        #expect(abs(hz - 440) < 15, "tone at \(hz) Hz")
        // None of the SFU's quality, speaker or layer events on the CDN engine.
        #expect(!viewer.events.events.contains { $0.hasPrefix("quality") || $0.hasPrefix("speakers") || $0.hasPrefix("layer") })
        await #expect(throws: SRTCError.self) { try await viewer.channel.publishLocalTrack(viewer.engine.createLocalCustomAudioTrack(desc: "mic")) }

        // `srtc play URL --record DIR`, the CLI on the CDN engine, writes what it played: Y4M
        // video with the composite's advancing frame numbers, WAV audio with the tone.
        let played = server.directory.file("played")
        let play = try ChildProcess(EgressTestServer.buildDirectory + "/srtc", ["play", server.url + path, "--record", played, "--duration", "5"])
        #expect(await onThread { play.waitUntilExit() } == 0)
        let files = (try? FileManager.default.contentsOfDirectory(atPath: played)) ?? []
        let y4m = try #require(files.first { $0.hasSuffix(".y4m") }, "\(files)")
        let wav = try #require(files.first { $0.hasSuffix(".wav") }, "\(files)")
        let video = try await offPool { try DecodedMediaFile(url: played + "/" + y4m) }
        #expect(video.frameNumbers.count >= 20 && nonDecreasing(video.frameNumbers) && video.frameNumbers.last! > video.frameNumbers.first!,
                "srtc play recorded \(video.frameNumbers.count) numbered frames")
        let audio = try await offPool { try DecodedMediaFile(url: played + "/" + wav) }
        let playedHz = try #require(FrequencyEstimator.zeroCrossingFrequency(Array(audio.audio.suffix(audio.sampleRate)), sampleRate: audio.sampleRate))
        #expect(abs(playedHz - 440) < 15, "srtc play recorded the tone at \(playedHz) Hz")

        // Stopping the stream ends the playlist: the CDN channel ends with it.
        let (stopped, _) = try await server.call("/server/v1/channel/live/stop", ["channel": "show", "uid": "mcu"])
        #expect(stopped == 200)
        try await viewer.events.wait(for: "disconnected channel_closed")

        // The backend heard the stream start, then end, signed, with the composite's uid and live object.
        _ = try await hooks.waitFor("live_ended")
        let liveHooks = hooks.deliveries.filter { $0.event?.hasPrefix("live_") == true }
        #expect(liveHooks.map(\.event) == ["live_started", "live_ended"])
        #expect(liveHooks.allSatisfy { $0.signatureValid && $0.json["channel"] == "show" && $0.json["data.uid"] == "mcu" })
        #expect(liveHooks.map { $0.data["live"] as? [String: Any] }.map { $0?["status"] as? String } == ["live", "ended"])
        #expect(liveHooks.allSatisfy { ($0.data["live"] as? [String: Any])?["hls_url"] as? String == path })
        #expect(liveHooks[0].sequence < liveHooks[1].sequence)
        pusher.stop()
        await publisher.channel.leave()
        await server.stop()
        await hooks.shutdown()
    }

    /// Debian's ffmpeg as the CDN's ingest (it listens, then copies what arrives into the file it
    /// returns), and the composite `uid` of `channel` pushing to it (RTMP only, no HLS).
    static func pushToFFmpeg(_ server: EgressTestServer, channel: String, uid: String) async throws -> (ChildProcess, String) {
        let port = try freeTCPPort()
        let received = server.directory.file("received.flv")
        let receiver = try ChildProcess("/usr/bin/ffmpeg", ["-loglevel", "error", "-listen", "1", "-i", "rtmp://127.0.0.1:\(port)/live/stream",
                                                            "-c", "copy", "-y", received])
        try await eventually("ffmpeg listening") { isListening(port: port) }
        let (status, json) = try await server.call("/server/v1/channel/live/start",
                                                   ["channel": channel, "uid": uid, "hls": false, "rtmp_url": "rtmp://127.0.0.1:\(port)/live/stream"])
        let live = (json["composite"] as? [String: Any])?["live"] as? [String: Any]
        #expect(status == 200 && live?["status"] as? String == "live" && live?["hls_url"] == nil, "\(json)")
        return (receiver, received)
    }

    @Test func rtmpPushReachesALocalReceiver() async throws {
        let server = try EgressTestServer()
        let (publisher, pusher) = try await Self.compositeOfOne(server, channel: "push")
        let (receiver, received) = try await Self.pushToFFmpeg(server, channel: "push", uid: "mcu")
        // Until the receiver has what the checks below need (a fixed 4 s was not enough when the
        // machine was busy: the worker took longer to start its encoder and the push).
        try await eventually("20 numbered frames at the receiver", poll: .milliseconds(500)) {
            ((try? await offPool { try DecodedMediaFile(url: received) })?.frameNumbers.count ?? 0) >= 20
        }
        let (stopped, _) = try await server.call("/server/v1/channel/live/stop", ["channel": "push", "uid": "mcu"])
        #expect(stopped == 200)
        _ = try await offPool { receiver.waitUntilExit() }

        #expect(try await offPool { try MediaProbe(received) }.codecs.sorted() == ["aac", "h264"])
        let decoded = try await offPool { try DecodedMediaFile(url: received) }
        #expect(decoded.frameNumbers.count >= 20 && nonDecreasing(decoded.frameNumbers), "\(decoded.frameNumbers.count) frames")
        pusher.stop()
        await publisher.channel.leave()
        await server.stop()
    }
}

/// A TCP port nothing listens on now.
func freeTCPPort() throws -> UInt16 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
    _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
    return UInt16(bigEndian: address.sin_port)
}

/// Whether a socket listens on TCP `port` (read from /proc/net/tcp: connecting to find out would
/// use up ffmpeg's one `-listen 1` connection).
func isListening(port: UInt16) -> Bool {
    guard let table = try? String(contentsOfFile: "/proc/net/tcp", encoding: .utf8) else { return false }
    let hexPort = String(format: ":%04X", port)
    return table.split(separator: "\n").dropFirst().contains { line in
        let fields = line.split(separator: " ")
        return fields.count > 3 && fields[1].hasSuffix(hexPort) && fields[3] == "0A"
    }
}
