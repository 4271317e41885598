// The data types of the events page keep their documented names. Where the signaling protocol's
// type is exactly what the SDK hands to the app, it is re-exported under that name, so an app
// needs only `import SRTC`.
import RTCMedia
import SRTCProtocol

// MARK: - Channel, users, tracks

/// A channel's public state (`channel`, `createdAt`, `userCount`, `metadata`).
public typealias ChannelInfo = SRTCProtocol.ChannelInfo
/// A user in a channel: uid, nickname, custom data, join time and published tracks.
public typealias UserInfo = SRTCProtocol.UserInfo
/// A published track as every participant sees it: id, publisher uid, kind, desc, muted, layers.
public typealias TrackInfo = SRTCProtocol.TrackInfo
/// Audio or video.
public typealias TrackKind = SRTCProtocol.TrackKind
/// A video codec the SDK encodes and decodes: `.vp8` or `.h264` (`SRTCEngine.Configuration.preferredVideoCodec`).
public typealias VideoCodec = RTCMedia.VideoCodec
/// One simulcast layer of a video track (`rid`, `desc`, size, bitrate).
public typealias SimulcastLayer = SRTCProtocol.SimulcastLayer
/// Why a user left or the connection ended.
public typealias DisconnectReason = SRTCProtocol.DisconnectReason
/// A custom message between users (or from the app's backend when `from` is nil).
public typealias CustomMessage = SRTCProtocol.CustomMessage

// MARK: - Call quality

/// The raw value stream of `channel(_:didReceiveQualityReport:)`.
public typealias QualityReport = SRTCProtocol.QualityReport
/// Statistics of one direction of a link over a report interval.
public typealias LinkStats = SRTCProtocol.LinkStats
/// `excellent`, `good`, `poor`, `lost`.
public typealias ConnectionQuality = SRTCProtocol.ConnectionQuality
/// A quality level change of one participant.
public typealias ConnectionQualityChange = SRTCProtocol.ConnectionQualityChange
/// The full active-speaker list, loudest first.
public typealias ActiveSpeakersSnapshot = SRTCProtocol.ActiveSpeakersSnapshot
/// One entry of an `ActiveSpeakersSnapshot`.
public typealias ActiveSpeaker = SRTCProtocol.ActiveSpeaker
/// A simulcast layer switch that took effect.
public typealias LayerSwitchedInfo = SRTCProtocol.LayerSwitchedInfo
/// A live caption of a participant's speech (server captions, docs/protocol.md "Captions").
public typealias Caption = SRTCProtocol.Caption

// MARK: - Media

/// A video frame: pixels, presentation time (µs) and rotation.
public typealias VideoFrame = RTCMedia.VideoFrame
/// Portable pixels: I420, NV12 or BGRA.
public typealias VideoPixelBuffer = RTCMedia.VideoPixelBuffer
/// Display rotation of a frame.
public typealias VideoRotation = RTCMedia.VideoRotation
/// Interleaved PCM audio, 16-bit or float.
public typealias AudioPCMBuffer = RTCMedia.AudioPCMBuffer

// MARK: - IM

/// One entry of my IM mailbox (a message, notification, meeting reminder or call event).
public typealias IMMessage = SRTCProtocol.IMMessage
/// What an IM entry is.
public typealias IMMessageKind = SRTCProtocol.IMMessageKind
/// The answer to `sendImMessage(to:content:)`.
public typealias IMSendResponse = SRTCProtocol.IMSendResponse
/// The answer to `sendCallInvite(to:channel:content:timeoutSeconds:)`: the call's id.
public typealias IMInviteResponse = SRTCProtocol.IMInviteResponse
