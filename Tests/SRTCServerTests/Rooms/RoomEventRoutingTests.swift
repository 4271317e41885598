import Foundation
import Testing
import SFU
import SRTCProtocol
@testable import SRTCServer

/// The SFU's events reach a room through `MediaServer` (a real SFU worker on a loopback port),
/// on the same serial path as the media side's offers.
@Suite(.serialized) struct RoomEventRoutingTests {
    /// Before one inbox per room, each event hopped to the room in its own task, and two events
    /// raised in order could arrive swapped.
    @Test func eventsOfOneRoomArriveInTheOrderTheyWereRaised() async throws {
        let server = try MediaServer(bind: "127.0.0.1", port: 0, publicIP: nil, qualityIntervalSeconds: 1)
        defer { server.stop() }
        let h = RoomHarness()
        let alice = try await h.join("alice")
        let router = RouterID("order")
        server.register(room: h.room, router: router)
        let count = 2_000
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread {
                for i in 0..<count {
                    if i % 2 == 0 {
                        // The SFU's route: an event raised on its I/O thread.
                        server.sfuWorker(server.workers[0].sfu, didEmit: .activeSpeakers(router, [
                            SpeakerLevel(participant: "alice", producer: ProducerID("\(i)"), level: 0.5)]))
                    } else {
                        // The media side's route: a subscriber offer of the same room.
                        h.room.inbox.post(.subscriberOffer(uid: "alice", sdp: "v=0", revision: i))
                    }
                }
                done.resume()
            }.start()
        }
        await h.settled()
        #expect(ChannelRoomTests.sequence(alice.connection.events) == Array(0..<count))
        await h.room.close(reason: .serverShutdown)
    }

    @Test func aLayerSwitchOfTheSFUReachesTheSubscriber() async throws {
        let server = try MediaServer(bind: "127.0.0.1", port: 0, publicIP: nil, qualityIntervalSeconds: 1)
        defer { server.stop() }
        let h = RoomHarness()
        let alice = try await h.join("alice")
        let bob = try await h.join("bob")
        let video = try #require(try await alice.publish(["v0"])["v0"])
        let router = RouterID("switch")
        server.register(room: h.room, router: router)
        let consumer = ConsumerID("bob/\(video)")
        server.register(consumer: consumer, router: router, uid: "bob", trackId: video)
        server.sfuWorker(server.workers[0].sfu, didEmit: .layerSwitched(consumer: consumer, LayerSwitch(layer: "camera_small", previous: nil, cause: .requested)))
        server.sfuWorker(server.workers[0].sfu, didEmit: .layerSwitched(consumer: consumer, LayerSwitch(layer: "camera_big", previous: "camera_small", cause: .bandwidth)))
        server.unregister(consumer: consumer)
        server.sfuWorker(server.workers[0].sfu, didEmit: .layerSwitched(consumer: consumer, LayerSwitch(layer: "camera_small", previous: "camera_big", cause: .bandwidth)))
        await h.settled()
        let switches = bob.connection.events.filter { $0.typeName == "layer_switched" }
        #expect(switches == [
            .layerSwitched(LayerSwitchedInfo(uid: "alice", trackId: video, layer: "camera_small", previous: nil, cause: "requested")),
            .layerSwitched(LayerSwitchedInfo(uid: "alice", trackId: video, layer: "camera_big", previous: "camera_small", cause: "bandwidth")),
        ])
        #expect(!alice.connection.events.contains { $0.typeName == "layer_switched" })
        await h.room.close(reason: .serverShutdown)
    }
}
