import SRTCCore

// The CDN engine's join (docs/sdk-srtc.md, "The CDN engine"): the channel's side lives in the
// engine (`Channel+CDN.swift`), the stream is read here with FFmpeg.
extension Channel {
    /// Plays a live stream on a channel created with `createChannel(engine: .cdn)`: the CDN
    /// engine's join. `didJoinSucceed` follows, then `userDidJoin` for the stream (uid `stream`)
    /// and `didAddTrack` for its video (`camera_big`) and audio (`mic`). Subscribe to a track to
    /// get its frames. When the stream breaks the channel reconnects (`channelIsReconnecting`,
    /// `didReconnect`); when it ends, `didDisconnect` reports `.channelClosed`.
    /// - Parameter url: an HLS playlist (`http://host:7880/live/<app_id>/<channel>/index.m3u8`), an
    ///   `rtmp://` URL, or anything FFmpeg reads.
    /// - Returns: the channel's info: `channel` is the stream's name (the playlist's directory).
    /// - Throws: `.wrongState` on an SFU channel or when already playing, `.connectionFailed`
    ///   when the stream cannot be opened.
    @discardableResult
    public func play(url: String) async throws(SRTCError) -> ChannelInfo {
        #if canImport(RTCAV)
        try await play(url: url, player: CDNStreamPlayer())
        #else
        throw .wrongState("the CDN engine needs FFmpeg (RTCAV), which this platform build does not include")
        #endif
    }
}
