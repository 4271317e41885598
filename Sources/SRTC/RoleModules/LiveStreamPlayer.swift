import SRTCProtocol

/// What the CDN engine's channel (`Channel+CDN.swift`) needs from a stream reader: the module
/// `SRTCPlayer` reads streams with FFmpeg and passes its player to `Channel.play(url:player:)`,
/// so the engine keeps the channel's side (states, events, reconnection) without FFmpeg.
package protocol LiveStreamPlayer: Sendable {
    /// Opens `url`, giving up after `timeout` seconds. It blocks on the network: the channel calls
    /// it on a thread of its own.
    func open(url: String, timeout: Double) throws(SRTCError) -> any LiveStream
}

/// One opened stream.
package protocol LiveStream: AnyObject, Sendable {
    /// The tracks the stream has, as the channel announces them (ids `CDN_video`, `CDN_audio`).
    func trackInfos(uid: String) -> [TrackInfo]
    /// Starts reading on a thread of its own: decoded video goes to `video`'s renderers, audio in
    /// 20 ms buffers at 48 kHz to `audio`'s, each while subscribed. `onEnd` runs once when
    /// reading stops by itself.
    func start(video: RemoteVideoTrack?, audio: RemoteAudioTrack?, onEnd: @escaping @Sendable (LiveStreamOutcome) -> Void)
    /// Stops reading (or gives up an opened stream never started); nothing is reported after.
    func stop()
}

/// How reading a live stream ended by itself.
package enum LiveStreamOutcome: Sendable, Equatable {
    /// A read failed (network, server gone): the channel reconnects.
    case lost(String)
    /// The stream ended (a finished HLS playlist, the end of a file).
    case ended
}

/// The CDN engine's player and the stream it plays (`Channel.State.cdn` while playing).
struct LiveStreamPlayback: Sendable {
    let player: any LiveStreamPlayer
    var stream: (any LiveStream)?
}
