import Foundation
import RTCTransport
import RTCWire
import SRTCProtocol
@testable import SRTCServer
import SRTCTestSupport
import Testing
import TestWait

/// User data in a channel that spans nodes (docs/deploy.md, "Channels larger than a node"): the
/// data channels of sessions served by relaying nodes and of those on the channel's node reach
/// each other over the relay transports' own data channels, with the original sender, to the
/// recipients named, in order on the reliable channel.
@Suite struct ClusterEdgeDataTests {
    /// What one client received on its data channels: (channel id, packet), in arrival order.
    static func received(_ client: MediaTestClient) -> [(channel: UInt16, packet: DataPacket.Delivery)] {
        let events = client.subscribeEndpoint?.log.withLock { $0.dataChannel } ?? []
        return events.compactMap { event in
            guard case .message(let id, let data, binary: true) = event,
                  let packet = try? data.withUnsafeBytes({ raw in try DataPacket.Delivery(parsing: raw) }) else { return nil }
            return (id, packet)
        }
    }

    /// The numbers (payloads) `client` received from `sender` with `topic` on `channel`, in arrival order.
    static func numbers(_ client: MediaTestClient, from sender: String?, topic: String, channel: UInt16 = SignalDataChannel.reliableID) -> [Int] {
        received(client).filter { $0.channel == channel && $0.packet.from == sender && $0.packet.topic == topic }
            .compactMap { Int(String(decoding: $0.packet.payload, as: UTF8.self)) }
    }

    static func send(_ client: MediaTestClient, _ text: String, to recipients: [String] = [], topic: String,
                     channel: UInt16 = SignalDataChannel.reliableID) throws {
        let packet = try DataPacket.publish(payload: Array(text.utf8), to: recipients, topic: topic)
        try #require(client.subscribeEndpoint).send(data: packet, binary: true, on: channel)
    }

    /// `client`'s subscribe transport, once its reliable data channel is open.
    @discardableResult
    static func reliableChannelOpen(_ client: MediaTestClient) async throws -> TransportEndpoint {
        let endpoint = try await waitFor("\(client.uid)'s subscribe transport") { client.subscribeEndpoint }
        try await eventually("\(client.uid)'s data channel open") {
            endpoint.log.withLock { $0.dataChannel }.contains { if case .opened(let info) = $0 { info.id == SignalDataChannel.reliableID } else { false } }
        }
        return endpoint
    }

    @Test func dataCrossesBetweenTheChannelsNodeAndRelayingNodesInOrderToItsRecipientsOnly() async throws {
        let url = try await TestRedis.freshURL()
        let nodes = try ["a", "b", "c"].map { id in
            try TestServer { $0.cluster.redisURL = url; $0.cluster.nodeId = id; $0.limits.nodeChannelSubscribers = 1 }
        }
        let (a, b, c) = (nodes[0], nodes[1], nodes[2])
        // All idle: the channel goes to "a". alice and dave are served there (connected to it);
        // a is then at its limit of 1, so bob is served by b and carol by c.
        var clients: [MediaTestClient] = []
        for (node, uid) in [(a, "alice"), (a, "dave"), (b, "bob"), (c, "carol")] {
            let client = try await MediaTestClient(server: node, uid: uid, channel: "chat", dataChannels: true)
            let endpoint = try await Self.reliableChannelOpen(client)
            let ports = try #require(client.latestOffer).media.flatMap(\.candidates).map(\.port)
            #expect(!ports.isEmpty && ports.allSatisfy { $0 == node.channelUDPPort }, "\(uid)'s data channels are on its node: \(ports)")
            clients.append(client)
        }
        let (alice, dave, bob, carol) = (clients[0], clients[1], clients[2], clients[3])
        #expect(b.app.edges.count == 1 && c.app.edges.count == 1)

        // The relays' data channels open with their transports: until then a message between
        // nodes has nowhere to go. Probe both ways until each crossed once.
        try await eventually(timeout: 30, "bob's and alice's probes across the relay", poll: .milliseconds(200)) {
            if Self.numbers(alice, from: "bob", topic: "probe").isEmpty { try Self.send(bob, "0", to: ["alice"], topic: "probe") }
            if Self.numbers(bob, from: "alice", topic: "probe").isEmpty { try Self.send(alice, "0", to: ["bob"], topic: "probe") }
            if Self.numbers(bob, from: "carol", topic: "probe").isEmpty { try Self.send(carol, "0", to: ["bob"], topic: "probe") }
            return !Self.numbers(alice, from: "bob", topic: "probe").isEmpty && !Self.numbers(bob, from: "alice", topic: "probe").isEmpty
                && !Self.numbers(bob, from: "carol", topic: "probe").isEmpty
        }

        // bob (on b) to everyone; alice (on a) to bob; bob to alice; carol (on c) to bob, through a.
        for i in 0..<100 { try Self.send(bob, String(i), topic: "all") }
        for i in 0..<100 { try Self.send(alice, String(i), to: ["bob"], topic: "to-bob") }
        for i in 0..<50 { try Self.send(bob, String(i), to: ["alice"], topic: "to-alice") }
        for i in 0..<50 { try Self.send(carol, String(i), to: ["bob"], topic: "from-c") }
        for i in 0..<20 { try Self.send(bob, String(i), to: ["alice"], topic: "lossy", channel: SignalDataChannel.lossyID) }
        // The end markers, to everyone: behind each sender's messages on the same ordered paths.
        for sender in [alice, bob, carol] { try Self.send(sender, "100", topic: "end") }
        for (client, senders) in [(alice, ["bob", "carol"]), (bob, ["alice", "carol"]), (carol, ["alice", "bob"]), (dave, ["alice", "bob", "carol"])] {
            try await eventually("\(client.uid)'s end markers") { senders.allSatisfy { !Self.numbers(client, from: $0, topic: "end").isEmpty } }
        }

        // To everyone: every other client, in order, once, whichever node serves it.
        for client in [alice, carol, dave] {
            #expect(Self.numbers(client, from: "bob", topic: "all") == Array(0..<100), "\(client.uid)")
        }
        // To a named uid: only there, in order, both ways and from the third node.
        #expect(Self.numbers(bob, from: "alice", topic: "to-bob") == Array(0..<100))
        #expect(Self.numbers(alice, from: "bob", topic: "to-alice") == Array(0..<50))
        #expect(Self.numbers(bob, from: "carol", topic: "from-c") == Array(0..<50))
        for client in [carol, dave] {
            #expect(Self.numbers(client, from: "alice", topic: "to-bob").isEmpty && Self.numbers(client, from: "bob", topic: "to-alice").isEmpty
                    && Self.numbers(client, from: "carol", topic: "from-c").isEmpty, "\(client.uid) got what was not for it")
        }
        // Lossy stays lossy (channel 1) across the relay: some arrive, each once, at alice only.
        let lossy = Self.numbers(alice, from: "bob", topic: "lossy", channel: SignalDataChannel.lossyID)
        #expect(!lossy.isEmpty && Set(lossy).count == lossy.count && lossy.allSatisfy { (0..<20).contains($0) })
        #expect(Self.numbers(alice, from: "bob", topic: "lossy").isEmpty && Self.received(carol).allSatisfy { $0.packet.topic != "lossy" })
        // Nothing comes back to its sender (a relayed message never goes back over its relay).
        for client in clients {
            #expect(!Self.received(client).contains { $0.packet.from == client.uid }, "\(client.uid) got its own message")
        }

        // The backend's message for carol, sent through the channel's node, reaches her on c.
        let (status, body) = try await a.call("/server/v1/channel/data", ["channel": "chat", "to": ["carol"],
                                                                          "data": Data("7".utf8).base64EncodedString(), "topic": "api"])
        #expect(status == 200 && body["delivered"] as? Int == 0, "counted on the channel's node only: \(body)")
        try await eventually("the backend's message at carol") { Self.numbers(carol, from: nil, topic: "api") == [7] }
        #expect([alice, bob, dave].allSatisfy { Self.numbers($0, from: nil, topic: "api").isEmpty })

        for client in clients { client.close() }
        for node in nodes.reversed() { await node.stop() }
    }

    /// Live captions (docs/captions.md) reach the users a relaying node serves as they reach the
    /// channel's node's own: the caption worker hands each caption to the channel's node
    /// (`ChannelControl.caption`, where the egress module delivers what its worker recognised),
    /// whose room sends it on each user's WebSocket, relayed for a user of another node; that node
    /// puts it on the user's data channel when one is open there (`EdgeClients.divert`).
    @Test func captionsReachUsersServedByRelayingNodesInOrder() async throws {
        let url = try await TestRedis.freshURL()
        let nodes = try ["a", "b"].map { id in
            try TestServer { $0.cluster.redisURL = url; $0.cluster.nodeId = id; $0.limits.nodeChannelSubscribers = 1 }
        }
        let (a, b) = (nodes[0], nodes[1])
        // The channel goes to "a" with alice; bob (with data channels) and carol (without) are served by b.
        var clients: [MediaTestClient] = []
        for (node, uid, data) in [(a, "alice", true), (b, "bob", true), (b, "carol", false)] {
            let client = try await MediaTestClient(server: node, uid: uid, channel: "cc", dataChannels: data)
            if data { try await Self.reliableChannelOpen(client) }
            clients.append(client)
        }
        let (alice, bob, carol) = (clients[0], clients[1], clients[2])
        #expect(b.app.edges.count == 1, "bob and carol are served by b")

        let sent = [Caption(uid: "alice", text: "i would", final: false, startMs: 1_000, endMs: 1_400),
                    Caption(uid: "alice", text: "i would like a cup", final: false, startMs: 1_000, endMs: 1_900),
                    Caption(uid: "alice", text: "i would like a cup of coffee", final: true, startMs: 1_000, endMs: 2_600)]
        let control = ChannelControl(manager: a.app.channels)
        for caption in sent {
            #expect(await control.caption(ChannelKey(appId: TestServer.appId, name: "cc"), caption))
        }
        func captions(_ events: [ServerEvent]) -> [Caption] { events.compactMap { if case .caption(let c) = $0 { c } else { nil } } }
        for client in [alice, bob] {
            try await eventually("\(client.uid)'s captions on its data channel") { captions(client.dataChannelEvents).count >= sent.count }
            #expect(captions(client.dataChannelEvents) == sent, "\(client.uid)")
            #expect(captions(client.signal.events).isEmpty, "\(client.uid): on the data channel, not also on the WebSocket")
        }
        try await eventually("carol's captions on her WebSocket") { captions(carol.signal.events).count >= sent.count }
        #expect(captions(carol.signal.events) == sent)

        for client in clients { client.close() }
        for node in nodes.reversed() { await node.stop() }
    }
}
