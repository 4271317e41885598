import SRTCProtocol

/// A simulcast layer of a camera track, by the description subscribers ask for.
/// A camera-like track publishes both: rid `h` is `camera_big`, rid `l` is `camera_small`.
public enum VideoLayer: String, Sendable, CaseIterable {
    /// The full-size layer (rid `h`).
    case cameraBig = "camera_big"
    /// The quarter-size layer (rid `l`).
    case cameraSmall = "camera_small"

    /// The RTP stream id (RFC 8851) the SDK sends this layer with.
    public var rid: String {
        switch self {
        case .cameraBig: "h"
        case .cameraSmall: "l"
        }
    }
}

/// Track descriptions with a meaning to the SDK (any other string is a custom description).
public enum TrackDesc {
    /// Microphone audio: `mic`.
    public static let mic = TrackDescName.mic
    /// A camera (simulcast big and small layers): `camera_big`.
    public static let cameraBig = TrackDescName.cameraBig
    /// The small layer of a camera: `camera_small`.
    public static let cameraSmall = TrackDescName.cameraSmall
    /// Screen sharing: `screen`.
    public static let screen = TrackDescName.screen

    /// Whether a video track with this description is sent as two simulcast layers.
    public static func isCameraLike(_ desc: String) -> Bool {
        desc == cameraBig || desc == cameraSmall || desc.hasPrefix("camera")
    }
}
