/// The engine a channel runs on (`SRTCEngine.createChannel(engine:)`).
public enum ChannelEngine: Sendable, Equatable {
    /// The SFU engine ("SeaStart"): join with a token, publish and subscribe over WebRTC, with
    /// quality reports, active speakers and simulcast layers.
    case sfu
    /// The CDN engine: receive-only. `play(url:)` pulls a live stream (HLS, RTMP, or anything
    /// FFmpeg reads) and delivers its video and audio like a remote user's tracks. It has no
    /// quality, speaker or layer events, and cannot publish or send messages.
    case cdn
}
