import Foundation
import SRTCProtocol
import Synchronization

/// Janus VideoRoom as a load target, through the Janus HTTP API: one Janus session for the
/// whole run, a VideoRoom room per load room, a handle per publisher (`join` as publisher, then
/// `publish` with the offer) and per subscribing participant (`join` as subscriber to every feed
/// of its room, which Janus answers with an offer, then `start` with the answer). Simulcast
/// layers map to Janus substreams (0 = `l`, the small layer; 1 = `h`).
package final class JanusLoadTarget: LoadTarget, Sendable {
    package let name = "janus"
    /// `http://127.0.0.1:8088/janus`.
    package let baseURL: String
    /// Janus announces its interfaces' addresses (never loopback): clients bind the wildcard, or
    /// in the network lab the address of their side of the link.
    package let bindAddress: String

    private let session = Mutex<JanusSession?>(nil)
    private let roomIDs = Mutex<[String: UInt64]>([:])
    private let controlHandle = Mutex<UInt64?>(nil)

    package init(baseURL: String, bindAddress: String = "0.0.0.0") {
        self.bindAddress = bindAddress
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
    }

    private func liveSession() async throws -> JanusSession {
        if let existing = session.withLock({ $0 }) { return existing }
        let made = try await JanusSession.create(base: baseURL)
        let (chosen, won) = session.withLock { current -> (JanusSession, Bool) in
            if let current { return (current, false) }
            current = made
            return (made, true)
        }
        if !won { await made.destroy() }
        return chosen
    }

    package func prepare(rooms: [String], publishersPerRoom: Int) async throws {
        try LocalOnly.checkURL(baseURL)
        let janus = try await liveSession()
        let handle = try await janus.attach()
        controlHandle.withLock { $0 = handle }
        for room in rooms {
            let id = UInt64.random(in: 1_000_000 ... 999_999_999)
            // One VP8 + Opus room per load room; no REMB cap (bitrate 0), no periodic PLIs.
            _ = try await janus.message(handle: handle, body: [
                "request": "create", "room": id, "publishers": max(1, publishersPerRoom), "bitrate": 0,
                "fir_freq": 0, "audiocodec": "opus", "videocodec": "vp8", "notify_joining": false, "permanent": false,
            ])
            roomIDs.withLock { $0[room] = id }
        }
    }

    package func join(room: String, uid: String) async throws -> any LoadSession {
        guard let id = roomIDs.withLock({ $0[room] }) else { throw LoadError.setup("room \(room) was not prepared") }
        return JanusLoadSession(janus: try await liveSession(), room: id, uid: uid)
    }

    package func finish() async {
        guard let janus = session.withLock({ $0 }) else { return }
        if let handle = controlHandle.withLock({ $0 }) {
            for id in roomIDs.withLock({ Array($0.values) }) {
                _ = try? await janus.message(handle: handle, body: ["request": "destroy", "room": id], timeout: .seconds(5))
            }
        }
        await janus.destroy()
    }
}

/// One participant in a Janus room: its publisher handle and its subscriber handle.
final class JanusLoadSession: LoadSession, Sendable {
    private let janus: JanusSession
    private let room: UInt64
    private let uid: String
    private let handles = Mutex<[UInt64]>([])

    init(janus: JanusSession, room: UInt64, uid: String) {
        self.janus = janus
        self.room = room
        self.uid = uid
    }

    private func attach() async throws -> UInt64 {
        let handle = try await janus.attach()
        handles.withLock { $0.append(handle) }
        return handle
    }

    func publish(_ offer: LoadPublisher.Offer) async throws -> (answer: String, publication: LoadPublication) {
        let handle = try await attach()
        let joined = try await janus.message(handle: handle, body: ["request": "join", "ptype": "publisher", "room": room, "display": uid])
        guard let feed = (joined.data["id"] as? NSNumber)?.uint64Value else { throw LoadError.target("janus join: no publisher id") }
        let configured = try await janus.message(handle: handle, body: ["request": "publish"], jsep: ("offer", offer.sdp))
        guard let answer = configured.jsep, answer.type == "answer" else { throw LoadError.target("janus publish: no answer") }
        await janus.trickleCompleted(handle: handle)
        let tracks = offer.tracks.map { LoadPublication.Track(key: "\(feed)/\($0.mid)", kind: $0.kind, mid: $0.mid) }
        return (answer.sdp, LoadPublication(owner: uid, tracks: tracks, feed: feed))
    }

    func subscribe(to publications: [LoadPublication], layer: String?, subscriber: LoadSubscriber,
                   resolve: @escaping @Sendable (LoadPublication.Track) -> LoadStreamSender?) async throws {
        let handle = try await attach()
        subscriber.markRequested()
        let feeds = publications.compactMap(\.feed).map { ["feed": $0] }
        let attached = try await janus.message(handle: handle, body: ["request": "join", "ptype": "subscriber", "room": room,
                                                                      "streams": feeds])
        guard let offer = attached.jsep, offer.type == "offer" else { throw LoadError.target("janus subscribe: no offer") }
        // Janus names what each of its sections carries: the feed and that feed's mid.
        var keys: [String: String] = [:]
        var videoMids: [String] = []
        for stream in attached.data["streams"] as? [[String: Any]] ?? [] {
            guard let mid = stream["mid"] as? String, let feed = (stream["feed_id"] as? NSNumber)?.uint64Value,
                  let feedMid = stream["feed_mid"] as? String else { continue }
            keys[mid] = "\(feed)/\(feedMid)"
            if stream["type"] as? String == "video" { videoMids.append(mid) }
        }
        let sectionKeys = keys
        let answer = try subscriber.answer(offer: offer.sdp) { mid, _ in
            guard let key = sectionKeys[mid] else { return nil }
            for publication in publications { if let track = publication.track(key: key) { return resolve(track) } }
            return nil
        }
        _ = try await janus.message(handle: handle, body: ["request": "start"], jsep: ("answer", answer))
        await janus.trickleCompleted(handle: handle)
        try subscriber.connect()
        if layer == TrackDescName.cameraSmall, !videoMids.isEmpty {
            _ = try await janus.message(handle: handle, body: ["request": "configure",
                                                               "streams": videoMids.map { ["mid": $0, "substream": 0] }])
        }
    }

    func leave() async {
        for handle in handles.withLock({ $0 }) { await janus.detach(handle: handle) }
    }
}
