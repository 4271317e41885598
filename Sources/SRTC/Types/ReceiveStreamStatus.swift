/// A remote video's receive state changed: no frames for the engine's receive timeout
/// (`timedOut == true`), or frames flow again (`timedOut == false`). The first frame after
/// subscribing always reports `timedOut == false`, so an app can hide its loading indicator.
///
/// This is judged per track; the link-wide quality level says nothing about one video.
public struct ReceiveStreamStatus: Sendable, Equatable {
    /// The publisher's uid.
    public var uid: String
    /// The remote track's id.
    public var trackId: String
    /// The track's description (`camera_big`, `screen`, a custom one).
    public var desc: String
    /// `true` when no frame arrived for the timeout period; `false` when frames (re)started.
    public var timedOut: Bool

    public init(uid: String, trackId: String, desc: String, timedOut: Bool) {
        self.uid = uid
        self.trackId = trackId
        self.desc = desc
        self.timedOut = timedOut
    }
}
