import Synchronization
import SRTCProtocol
@testable import SRTCServer

/// A `RoomMedia` without an SFU: it records what the room asks of each participant's media and
/// answers the way `SFUParticipantMedia` does in shape (an answer per publish, a subscriber offer
/// with a new revision per subscription change, posted to the room's inbox).
final class FakeRoomMedia: RoomMedia {
    private let state = Mutex<(prepared: Int, closed: Int, participants: [String: FakeParticipantMedia])>((0, 0, [:]))

    func prepare(room: ChannelRoom) async throws(SignalError) {
        state.withLock { $0.prepared += 1 }
    }

    func makeParticipant(uid: String, joinedAt: Int64, events: RoomInbox, relayedBy: String?, anyVideoCodec: Bool) async -> ParticipantMedia {
        let media = FakeParticipantMedia(uid: uid, events: events)
        state.withLock { $0.participants[uid] = media }
        return media
    }

    func close() async {
        state.withLock { $0.closed += 1 }
    }

    func publishData(_ payload: [UInt8], topic: String?, reliable: Bool, to uids: Set<String>) async throws(SignalError) -> Int { 0 }

    /// Times the router was created and released.
    var preparedCount: Int { state.withLock { $0.prepared } }
    var closedCount: Int { state.withLock { $0.closed } }

    /// The media the room made for `uid` (the latest one).
    func participant(_ uid: String) -> FakeParticipantMedia? { state.withLock { $0.participants[uid] } }
}

/// One participant's fake media: a log of calls, in order.
final class FakeParticipantMedia: ParticipantMedia {
    let uid: String
    let events: RoomInbox
    private let state = Mutex<(calls: [String], revision: Int)>(([], 0))

    init(uid: String, events: RoomInbox) {
        self.uid = uid
        self.events = events
    }

    /// What the room asked, in order (`publish a,v`, `subscribe TR_x`, `close`…).
    var calls: [String] { state.withLock { $0.calls } }

    private func record(_ call: String) { state.withLock { $0.calls.append(call) } }

    /// Sends a subscriber offer with the next revision, as the real media does on every change.
    private func offer() {
        let revision = state.withLock { s -> Int in
            s.revision += 1
            return s.revision
        }
        events.post(.subscriberOffer(uid: uid, sdp: "offer \(revision)", revision: revision))
    }

    func publish(offer: String, tracks: [PublishTrack], trackIds: [String: String]) async throws(SignalError) -> String {
        guard offer != "bad" else { throw SignalError(.invalidParameter, "offer is not valid SDP") }
        record("publish " + tracks.map(\.mid).joined(separator: ","))
        // A real SDP offer is its own answer: the room reads each track's codec from it.
        return offer.hasPrefix("v=0") ? offer : "answer to " + offer
    }

    func unpublish(trackId: String, offer: String?) async throws(SignalError) -> String? {
        record("unpublish \(trackId)")
        return offer.map { "answer to " + $0 }
    }

    func setMuted(trackId: String, muted: Bool) async { record("mute \(trackId) \(muted)") }

    func subscribe(to track: TrackInfo, of publisher: ParticipantMedia, layer: String?) async throws(SignalError) {
        record("subscribe \(track.id)" + (layer.map { " " + $0 } ?? ""))
        offer()
    }

    func setLayer(trackId: String, layer: String?) async throws(SignalError) { record("layer \(trackId) \(layer ?? "best")") }

    func unsubscribe(trackId: String) async {
        record("unsubscribe \(trackId)")
        offer()
    }

    func applySubscriberAnswer(sdp: String, revision: Int) async throws(SignalError) { record("answer \(revision)") }

    func restartICE(_ transport: TransportRole, offer: String?) async throws(SignalError) -> String? {
        record("restart \(transport.rawValue)")
        return offer.map { "answer to " + $0 }
    }

    func openDataChannels(publishData: Bool) async { record(publishData ? "data channels" : "data channels, no publish") }

    func close() async { record("close") }
}
