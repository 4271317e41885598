/// How a two-layer camera track (`camera_big` with `camera_small`) goes out in a codec that has
/// scalable layers here, VP9 or AV1 (`SRTCEngine.Configuration.videoScalability`). VP8 and H.264
/// cameras are always simulcast.
public enum VideoScalability: String, Sendable, CaseIterable {
    /// One stream of two spatial layers with three temporal layers each (`L2T3_KEY`, W3C
    /// webrtc-svc): one encoder, one SSRC without rids; the server drops the layers a subscriber
    /// does not take.
    case svc
    /// Two encodings, as VP8 sends them: rid `h` (`camera_big`) and rid `l` (`camera_small`, a
    /// quarter of each side, 15 fps), each its own encoder and a one-layer stream (`L1T1`).
    case simulcast
}
