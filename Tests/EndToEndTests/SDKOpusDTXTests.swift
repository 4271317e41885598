import Foundation
import RTCMedia
@testable import SRTCCore
import SRTCLab
import SRTCTestSupport
import TestWait
import Testing

/// Opus DTX (RFC 7587 §3.1.3, docs/network.md "DTX") between two SDK engines through the real
/// server: the publisher offers `usedtx=1`, the answer keeps it, and its encoder stops sending
/// during silence. The subscriber counts the packets that arrive during silence and during the
/// tone, hears the tone at its frequency afterwards, conceals no tick for the gap, and nobody
/// NACKs it (the gap skips RTP time, not sequence numbers).
@Suite(.serialized) struct SDKOpusDTXTests {
    @Test func silenceWithDTXSendsFarFewerPacketsAndNothingIsNACKedOrConcealed() async throws {
        let server = try SDKTestServer()
        let a = SDKPeer(opusDTX: true), b = SDKPeer()
        let subscriber = SDKAutoSubscriber()
        b.channel.delegates.add(delegate: subscriber)
        try await a.channel.join(url: server.url, token: server.token(uid: "a", channel: "dtx"))
        try await b.channel.join(url: server.url, token: server.token(uid: "b", channel: "dtx"))
        let audio = a.engine.createLocalCustomAudioTrack(desc: "mic")
        try await a.channel.publishLocalTrack(audio)
        try await b.events.wait(for: "track+ a mic")
        let pusher = try SDKMediaPusher(video: nil, audio: audio, width: 320, height: 180)
        defer { pusher.stop() }
        let remote = try #require(b.channel.remoteTrack(uid: "a", desc: "mic") as? RemoteAudioTrack)
        func packets() -> Int { remote.receiveStatistics?.packetsReceived ?? 0 }
        func concealed() -> Int { remote.playoutCounters?.statistics.concealed ?? 0 }
        try await eventually(timeout: 20, "the tone arrives") { packets() > 50 }

        // Silence: after the encoder's hangover, DTX sends a packet every 400 ms or so.
        pusher.setSilent(true)
        try await Task.sleep(for: .seconds(1))
        let silenceStart = (packets(), concealed(), Date())
        try await Task.sleep(for: .seconds(4))
        let silenceEnd = (packets(), concealed(), Date())
        pusher.setSilent(false)
        try await Task.sleep(for: .seconds(1))
        let toneStart = (packets(), Date())
        try await Task.sleep(for: .seconds(3))
        let toneEnd = (packets(), Date())

        let silenceRate = Double(silenceEnd.0 - silenceStart.0) / silenceEnd.2.timeIntervalSince(silenceStart.2)
        let toneRate = Double(toneEnd.0 - toneStart.0) / toneEnd.1.timeIntervalSince(toneStart.1)
        let skipped = audio.sendPipeline.packetsSkippedByDTX
        let metrics = try await server.metrics()
        let nacksReceived = metrics["srtc_media_nacks_total{direction=\"received\"}"] ?? -1
        let nacksSent = metrics["srtc_media_nacks_total{direction=\"sent\"}"] ?? -1
        let hz = subscriber.collector.toneFrequency
        print("Opus DTX: \(fmt(silenceRate)) packets/s during silence, \(fmt(toneRate)) during the tone; "
            + "\(skipped) packets kept back by the publisher; \(silenceEnd.1 - silenceStart.1) ticks concealed in the silence; "
            + "NACKs from the subscriber \(nacksReceived), to the publisher \(nacksSent); tone after it \(hz.map(fmt) ?? "-") Hz")

        #expect(skipped > 0, "the publisher's encoder did not use DTX")
        // Far fewer: under a fifth of the tone's rate.
        #expect(silenceRate * 5 < toneRate, "\(silenceRate) / \(toneRate)")
        #expect(silenceEnd.1 == silenceStart.1, "a DTX gap was concealed as a loss")
        #expect(nacksReceived == 0 && nacksSent == 0)
        let frequency = try #require(hz)
        #expect(abs(frequency - 440) < 10, "tone decoded at \(frequency) Hz")
        pusher.stop()
        await a.channel.leave()
        await b.channel.leave()
        await server.stop()
    }
}
