import Foundation
import RTCMedia

/// A video track fed with frames the app has already encoded: H.264 access units in Annex B
/// (ITU-T H.264 Annex B: NAL units each after a `00 00 01` or `00 00 00 01` start code), sent
/// as they are, cut into RTP packets by the SDK's packetizer (RFC 6184, packetization-mode 1).
/// Nothing is decoded or encoded: what an RTMP ingest, a hardware encoder or a file already holds
/// goes out at no encoding cost.
///
/// ```swift
/// let track = srtc.createLocalEncodedVideoTrack(desc: "camera_big")
/// try await channel.publishLocalTrack(track)
/// track.pushEncodedFrame(accessUnit, isKeyFrame: isIDR, timestampUs: ptsUs)
/// ```
///
/// What the app must send (docs/sdk-swift.md, "Publishing encoded video"):
/// - **Constrained Baseline** (or Baseline without its FMO/ASO tools), **Main or High**, always
///   in display order: RTP carries no decoding order, so no B-frames. The section offers the
///   track's `profileLevelID` (`42e01f` unless told), and subscribers are offered that profile:
///   every WebRTC receiver decodes Constrained Baseline; Chromium and this SDK decode Main and
///   High too, a receiver that does not gets no video from the track.
/// - **SPS and PPS before every IDR** in the same access unit: a subscriber that joins late, or
///   that lost packets, starts at the next IDR and must find the parameter sets there.
/// - **Key frames when asked, if it can**: a receiver that joins or lost a frame asks for one
///   (PLI/FIR); `keyFrameRequested` says so until an IDR is pushed. An app that cannot make one
///   on demand (a relayed stream) sends its next IDR at its own interval: until then, a new
///   receiver shows nothing (delta frames are not sent to it before its first key frame).
///
/// Publishing fails (`SRTCError.mediaFailed`) when the server does not accept H.264 for the track.
// @unchecked Sendable: restates LocalVideoTrack's conformance; it adds only a `let` of a Sendable type.
public final class LocalEncodedVideoTrack: LocalVideoTrack, @unchecked Sendable {
    /// The codec of the pushed frames, the only one the track's section offers: `.h264`.
    public let codec: VideoCodec
    /// The H.264 `profile-level-id` the track offers (RFC 6184 §8.1: profile_idc, constraint
    /// flags, level_idc of the SPS the frames carry), e.g. `42e01f`, `4d0028`, `640028`.
    public let profileLevelID: String

    init(desc: String, preset: VideoPreset, profileLevelID: String, context: EngineContext) {
        codec = .h264
        self.profileLevelID = profileLevelID
        super.init(desc: desc, preset: preset, simulcast: false, context: context)
    }

    /// Sends one encoded access unit to every channel the track is published in (nothing while
    /// muted or unpublished).
    /// - Parameters:
    ///   - accessUnit: one picture's NAL units in Annex B form.
    ///   - isKeyFrame: whether it is an IDR picture (with its SPS and PPS).
    ///   - timestampUs: its presentation time in microseconds; the RTP timestamp is taken from it
    ///     (90 kHz), so it must grow with the pictures.
    /// - Returns: whether it went to at least one receiver path (false while muted, unpublished,
    ///   or while every path waits for a key frame).
    @discardableResult
    public func pushEncodedFrame(_ accessUnit: [UInt8], isKeyFrame: Bool, timestampUs: Int64) -> Bool {
        guard !isMuted else { return false }
        return sendPipeline.sendEncoded(EncodedVideoFrame(data: accessUnit, isKeyFrame: isKeyFrame, timestampUs: timestampUs),
                                        codec: codec)
    }

    /// A receiver asked for a key frame (a new subscriber, a picture loss: RTCP PLI or FIR) and no
    /// key frame was pushed since. An app with an encoder of its own makes its next frame an IDR.
    public var keyFrameRequested: Bool { sendPipeline.keyFrameRequested }

    /// Frames pushed and sent, and their bytes (every channel together counts each frame once).
    public var framesSent: Int { sendPipeline.stats.framesEncoded[0] }
}
