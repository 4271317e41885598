import Foundation
import RTCTransport
import SRTCProtocol
import SRTCServer
import SRTCTestSupport
import TestWait
import Testing

/// The subscribe transport's data channels (docs/protocol.md, "Data channels"): a client that
/// asks for them in `join` gets its quality, speaker and layer events there; one that does not
/// keeps getting them on the WebSocket.
@Suite(.serialized) struct ServerDataChannelTests {
    @Test func qualityAndSpeakerEventsTravelOnTheDataChannelAndStayOnTheWebSocketWithout() async throws {
        let server = try TestServer { $0.media.qualityIntervalSeconds = 0.5 }
        let alice = try await MediaTestClient(server: server, uid: "alice", channel: "dc")
        let bob = try await MediaTestClient(server: server, uid: "bob", channel: "dc", dataChannels: true)
        // Bob's first offer comes right after his join, with only the application section.
        let offer = try await bob.signal.event { e -> SessionDescriptionMessage? in
            if case .subscriberOffer(let o) = e { return o }
            return nil
        }
        #expect(offer.revision == 1)
        #expect(offer.sdp.contains("m=application ") && offer.sdp.contains(" UDP/DTLS/SCTP webrtc-datachannel") && !offer.sdp.contains("m=audio"))
        let endpoint = try await waitFor("bob's subscribe transport") { bob.subscribeEndpoint }
        try await eventually("the reliable data channel to open") {
            endpoint.log.withLock { $0.dataChannel }.contains { if case .opened(let info) = $0 { info.id == SignalDataChannel.reliableID } else { false } }
        }

        _ = try await alice.publish(audioSSRC: 0xA11CE)
        let publisher = try MediaTestPublisher(client: alice, audioSSRC: 0xA11CE)
        publisher.audioLevel = 10
        try await publisher.run(seconds: 1.5, video: false)
        func speakers(_ events: [ServerEvent]) -> [[String]] {
            events.compactMap { if case .activeSpeakers(let s) = $0 { s.speakers.map(\.uid) } else { nil } }
        }
        try await eventually("speakers and a quality report on the data channel") {
            speakers(bob.dataChannelEvents).contains(["alice"])
                && bob.dataChannelEvents.contains { if case .qualityReport(let r) = $0 { r.uid == "bob" } else { false } }
        }
        #expect(speakers(bob.dataChannelEvents).contains(["alice"]))
        #expect(bob.dataChannelEvents.contains { if case .qualityReport(let r) = $0 { r.uid == "bob" } else { false } })
        // Only the events the data channel carries, and none of them twice on the WebSocket.
        #expect(bob.dataChannelEvents.allSatisfy { $0.travelsOnDataChannel })
        #expect(speakers(bob.signal.events).isEmpty)
        // Alice asked for no data channel: the same speakers reach her on the WebSocket.
        let aliceSpeakers = try await alice.signal.event { e -> [String]? in
            if case .activeSpeakers(let s) = e, !s.speakers.isEmpty { return s.speakers.map(\.uid) }
            return nil
        }
        #expect(aliceSpeakers == ["alice"])
        alice.close(); bob.close()
        await server.stop()
    }
}
