import Foundation
import SRTCProtocol
import RTCNet
import SRTCTestSupport
import Synchronization
import TestWait
import Testing

/// A NAT between a subscriber and the server rebinds the subscriber's port mid-call
/// (`LossyRelay.rebind`): the client's address and sockets stay the same, so it sees nothing and
/// restarts nothing, but the server's media to the old mapping is lost. Silent for 500 ms, the
/// client's transport sends a consent check at once (`SilenceWatch`); it reaches the server from
/// the new mapping with USE-CANDIDATE (ICEControllingAgent), and the server moves its media there
/// (ICELiteResponder) without a new join (docs/network.md).
@Suite(.serialized) struct NATRebindingTests {
    @Test func theServerFollowsARebindingNATAtTheConsentCheckTheClientsSilenceSends() async throws {
        let server = try TestServer()
        let alice = try await MediaTestClient(server: server, uid: "alice", channel: "rebind")
        let bob = try await MediaTestClient(server: server, uid: "bob", channel: "rebind")
        let relay = try LossyRelay(server: try #require(SocketAddress(ip: "127.0.0.1", port: server.app.udpPort)))
        defer { relay.stop() }
        bob.subscribeRelay = relay
        let layer = MediaTestClient.VideoLayer(rid: "l", desc: TrackDescName.cameraSmall, ssrc: 0x0BEE_F002, width: 320, height: 180)
        let tracks = try await alice.publish(audioSSRC: nil, video: [layer])
        let video = try #require(tracks.first)
        try await bob.subscribe(video.id)
        let endpoint = try #require(bob.subscribeEndpoint)
        let ssrc = try #require(bob.announcedSSRC(of: video.id))
        let publisher = try MediaTestPublisher(client: alice, audioSSRC: nil, video: [layer])
        let sending = Task { try await publisher.run(seconds: 25) }
        defer { sending.cancel() }

        try await eventually("video reaches bob") { endpoint.packets(ssrc: ssrc).count > 30 }
        try relay.rebind()
        let rebound = ContinuousClock.now
        // The server goes on sending to the old mapping, which the NAT drops...
        try await eventually("the server still sends to the old mapping") { relay.staleMappingDrops.load(ordering: .relaxed) > 10 }
        let before = endpoint.packets(ssrc: ssrc).count
        // ...until bob's transport, silent for 500 ms, sends a consent check at once (not at the
        // next 5 s interval), which nominates the new mapping.
        try await eventually(timeout: 20, "video reaches bob again through the new mapping", poll: .milliseconds(20)) { endpoint.packets(ssrc: ssrc).count > before }
        let back = ContinuousClock.now - rebound
        try await eventually("video keeps coming") { endpoint.packets(ssrc: ssrc).count > before + 30 }
        let dropped = relay.staleMappingDrops.load(ordering: .relaxed)
        print("NAT rebinding: media back \(back) after the rebinding; \(dropped) datagrams lost to the old mapping")
        // Nobody left: the session and the subscription are the same.
        #expect(!alice.signal.events.contains { if case .userLeft = $0 { return true } else { return false } })
        sending.cancel()
        alice.close(); bob.close()
        await server.stop()
    }
}
