import Foundation
import RTCNet
import RTCWire
import SRTCProtocol
import Synchronization

/// One soak participant: publishes Opus and two-layer simulcast VP8 from the shared clip,
/// subscribes to everyone else's tracks through a relay that loses and delays packets, and counts
/// what arrives (`SoakReceiver`). The runner drives it: media pacing, ticks, and the random events
/// (leave and rejoin, resume, ICE restarts, layer switches).
// @unchecked Sendable: `publisher` and `tracks` are set in join() before the participant is shared; `hookedEndpoint` is used only by the runner's pacing task.
final class SoakParticipant: @unchecked Sendable {
    static let layers = [MediaTestClient.VideoLayer(rid: "h", desc: TrackDescName.cameraBig, ssrc: 0, width: 320, height: 180),
                         MediaTestClient.VideoLayer(rid: "l", desc: TrackDescName.cameraSmall, ssrc: 0, width: 160, height: 90)]

    let uid: String
    let client: MediaTestClient
    let relay: LossyRelay
    let receiver: SoakReceiver
    private(set) var publisher: MediaTestPublisher?
    /// The tracks this participant publishes.
    private(set) var tracks: [TrackInfo] = []
    /// Track ids subscribed to, and the layer asked for.
    private let subscriptions = Mutex<[String: String]>([:])
    private var hookedEndpoint: ObjectIdentifier?

    private init(uid: String, client: MediaTestClient, relay: LossyRelay, receiver: SoakReceiver) {
        self.uid = uid
        self.client = client
        self.relay = relay
        self.receiver = receiver
    }

    /// Joins, publishes and starts sending. `index` makes the SSRCs unique across participants.
    static func join(uid: String, index: Int, incarnation: Int, wsURL: String, token: String, udp: SocketAddress,
                     downlink: LinkShaper.Shape, seed: UInt64, clip: MediaClip) async throws -> SoakParticipant {
        let relay = try LossyRelay(server: udp)
        relay.shape(uplink: nil, downlink: downlink, seed: seed)
        do {
            let client = try await MediaTestClient(signalingURL: wsURL, uid: uid, token: token)
            client.subscribeRelay = relay
            let participant = SoakParticipant(uid: uid, client: client, relay: relay, receiver: SoakReceiver(clipFrames: clip.frameCount))
            let base = UInt32(0x5000_0000) | UInt32(index) << 16 | UInt32(incarnation & 0xFF) << 8
            let video = layers.enumerated().map { i, layer in
                MediaTestClient.VideoLayer(rid: layer.rid, desc: layer.desc, ssrc: base | UInt32(i + 1), width: layer.width, height: layer.height)
            }
            participant.tracks = try await client.publish(audioSSRC: base, video: video)
            participant.publisher = try MediaTestPublisher(client: client, audioSSRC: base, video: video, toneHz: 300 + Double(index) * 40, clip: clip)
            return participant
        } catch {
            relay.stop()
            throw error
        }
    }

    // MARK: - Media (the runner's pacing task)

    func sendAudio() { try? publisher?.sendAudio() }
    func sendVideo() { try? publisher?.sendVideo() }

    /// Runs the receiver's tick on the subscribe transport's thread, hooking the receiver up to a
    /// subscribe transport seen for the first time.
    func tick() {
        guard let endpoint = client.subscribeEndpoint else { return }
        let id = ObjectIdentifier(endpoint)
        if hookedEndpoint != id {
            hookedEndpoint = id
            endpoint.recordsPackets.store(false, ordering: .relaxed)
            let receiver = self.receiver
            // Before the hook: `receive` (the I/O thread) may call it at once.
            receiver.sendRTCP = { [weak endpoint] packets in endpoint?.send(rtcp: packets) }
            endpoint.onRTP.set { packet in receiver.receive(packet, nowUs: Int64(Monotonic.now() / 1000)) }
        }
        let receiver = self.receiver
        endpoint.transport.execute { _ in receiver.tick(nowUs: Int64(Monotonic.now() / 1000)) }
    }

    // MARK: - Subscriptions

    /// Subscribes to each of `tracks` not yet subscribed (a random layer for video); forgets
    /// subscriptions to tracks that are gone.
    func subscribe(to available: [TrackInfo], random: inout some RandomNumberGenerator) async {
        let ids = Set(available.map(\.id))
        subscriptions.withLock { $0 = $0.filter { ids.contains($0.key) } }
        for track in available where subscriptions.withLock({ $0[track.id] == nil }) {
            let layer = track.kind == .video ? (Bool.random(using: &random) ? TrackDescName.cameraBig : TrackDescName.cameraSmall) : nil
            do {
                try await client.subscribe(track.id, layer: layer)
                subscriptions.withLock { $0[track.id] = layer ?? "" }
            } catch {
                continue  // gone meanwhile (its publisher left): the next round sees it
            }
        }
    }

    /// Switches one video subscription to the other layer; `false` when there is none.
    func switchLayer(random: inout some RandomNumberGenerator) async -> Bool {
        let video = subscriptions.withLock { $0.filter { !$0.value.isEmpty } }
        guard let (trackId, layer) = video.randomElement(using: &random) else { return false }
        let other = layer == TrackDescName.cameraBig ? TrackDescName.cameraSmall : TrackDescName.cameraBig
        guard (try? await client.signal.request(.setLayer(SubscribeRequest(trackId: trackId, layer: other))))?.isSuccess == true else { return false }
        subscriptions.withLock { $0[trackId] = other }
        return true
    }

    // MARK: - Leaving

    /// Leaves the channel and stops everything.
    func leave() async {
        _ = try? await client.signal.request(.leave, timeout: 3)
        stop()
    }

    func stop() {
        client.subscribeEndpoint?.onRTP.set(nil)
        client.close()
        relay.stop()
    }
}
