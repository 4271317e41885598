import Foundation
import SRTCProtocol

// The session moved to another server node (docs/protocol.md, "Moving to another node"): the
// server's `reconnect` event, and a resume answered with `moved`, after which the media is
// negotiated afresh with the new node while users, tracks and subscriptions stay as they were.
extension Channel {
    // The server's `reconnect` event (its node is draining) closes the link and resumes as
    // after a dropped connection: `ChannelMachine.apply`.

    /// Drops the transports of the previous node (before any event of the new one is handled);
    /// the machine keeps `republishPending` until `republishAfterMove` succeeds.
    func dropMovedMedia() {
        let old = state.sync { s -> ChannelMedia? in
            defer { s.media = nil }
            return s.media
        }
        old?.close()
    }

    /// Publishes every local track again on a new publish transport, in one offer. The server
    /// gives each the id it had, so subscribers keep their tracks; it makes the recorded
    /// subscriptions again and sends a new subscriber offer by itself. Until it succeeds,
    /// `republishPending` stays set and each later resume calls this again.
    func republishAfterMove() {
        let published = state.sync { s in s.localTracks.sorted { $0.key < $1.key } }
        guard !published.isEmpty else {
            step(.track(.republished([])))
            return
        }
        Task { [self] in
            do throws(SRTCError) {
                let signal = try liveSignal()
                let media = try ensureMedia()
                try await media.publishLock.run { () async throws(SRTCError) in
                    var announced: [PublishTrack] = []
                    for (_, track) in published {
                        // A section an earlier, interrupted attempt added is offered again.
                        let mid = media.publish.mid(of: track) ?? media.publish.add(track).mid
                        announced.append(PublishTrack(mid: mid, kind: track.kind, desc: track.desc, muted: track.isMuted,
                                                      layers: media.publish.announcedLayers(of: track), e2ee: media.encryptsOutgoing ? true : nil))
                    }
                    let data = try await signal.request(.publish(PublishRequest(sdp: media.publish.makeOffer(), tracks: announced)))
                    guard case .answer(let answer) = data else { throw .mediaFailed("publish was answered without an SDP answer") }
                    try media.publish.applyAnswer(answer.sdp)
                    for sent in announced.prefix(answer.tracks.count) { media.publish.attach(mid: sent.mid) }
                    // A track the server gave another id (it was gone there) is bound to it.
                    await answered(.republished(answer.tracks))
                }
                context.logger.info("published \(published.count) track(s) again on the channel's new node")
            } catch {
                // The connection dropped again meanwhile: the next resume tries again.
                context.logger.warning("could not publish again after moving: \(error)")
            }
        }
    }
}
