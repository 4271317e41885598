import SRTCProtocol

/// A server a load test runs against: our server (its signaling protocol, docs/protocol.md) or
/// Janus VideoRoom (its HTTP API). Only signaling differs; the media clients are the same, so
/// both servers carry exactly the same load.
package protocol LoadTarget: Sendable {
    /// `srtc` or `janus`, for reports.
    var name: String { get }
    /// The local address client sockets bind to (loopback for a server announcing loopback).
    var bindAddress: String { get }
    /// Called before anyone joins `rooms` (Janus creates them); again for rooms a run adds later
    /// (`LoadRun.addRooms`).
    func prepare(rooms: [String], publishersPerRoom: Int) async throws
    /// Joins `room` as `uid`.
    func join(room: String, uid: String) async throws -> any LoadSession
    /// Called once after everyone left (Janus destroys the rooms).
    func finish() async
}

/// One participant's signaling session.
package protocol LoadSession: Sendable {
    /// Sends the publish offer; returns the answer and the published tracks as subscribers name them.
    func publish(_ offer: LoadPublisher.Offer) async throws -> (answer: String, publication: LoadPublication)
    /// Subscribes to every track of `publications` (video at `layer`, nil for the best), feeding
    /// each offer the server makes to `subscriber`, which binds each section to its source with
    /// `resolve` and connects once the server has its answer.
    func subscribe(to publications: [LoadPublication], layer: String?, subscriber: LoadSubscriber,
                   resolve: @escaping @Sendable (LoadPublication.Track) -> LoadStreamSender?) async throws
    /// Leaves (best effort).
    func leave() async
}

/// What one participant published, as subscribers name it.
package struct LoadPublication: Sendable {
    package struct Track: Sendable, Hashable {
        /// The name subscribers use: our server's track id, or Janus's `feed/mid`.
        package var key: String
        package var kind: TrackKind
        /// The publisher's mid (which of its streams this is).
        package var mid: String
    }

    package var owner: String
    package var tracks: [Track]
    /// Janus's publisher id (its feed).
    package var feed: UInt64?

    package func track(key: String) -> Track? { tracks.first { $0.key == key } }
}
