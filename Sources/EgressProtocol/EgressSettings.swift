// What the server asks an egress worker to make: a composite, a recording, a live stream. Shared
// by the server's egress module (which validates the API bodies into these) and `srtc-egress`.

/// How a composite arranges the videos.
public enum EgressLayout: String, Codable, Sendable, CaseIterable {
    /// Equal tiles, as square a grid as the count allows; empty tiles black.
    case grid
    /// The active speaker large, the others in a column of small tiles on the right.
    case speaker
}

/// A recording's container: WebM keeps VP8 and Opus as received; MP4 holds H.264 and AAC.
public enum RecordingFormat: String, Codable, Sendable, CaseIterable {
    case webm
    case mp4

    /// The file name extension.
    public var fileExtension: String { rawValue }
}

/// What a recording records.
public enum RecordingKind: String, Codable, Sendable, CaseIterable {
    /// One published track (audio or video).
    case track
    /// The video and audio a composite publishes.
    case composite
}

/// A composite (MCU): decode every camera, compose, mix, publish under `uid`.
public struct CompositeSettings: Codable, Sendable, Equatable {
    /// The uid the composite is published under (a hidden participant).
    public var uid: String
    public var layout: EgressLayout
    /// Output size in pixels (even), frames per second and VP8 bitrate of the big layer.
    public var width: Int
    public var height: Int
    public var frameRate: Int
    public var bitrate: Int
    /// Whether the mixed audio is published too.
    public var audio: Bool
    /// Seconds without any user in the channel after which the composite ends by itself.
    public var idleTimeoutSeconds: Int

    public init(uid: String, layout: EgressLayout = .grid, width: Int = 1280, height: Int = 720, frameRate: Int = 30,
                bitrate: Int = 2_000_000, audio: Bool = true, idleTimeoutSeconds: Int = 60) {
        self.uid = uid
        self.layout = layout
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.bitrate = bitrate
        self.audio = audio
        self.idleTimeoutSeconds = idleTimeoutSeconds
    }
}

/// A recording of one track, or of a composite's video and audio.
public struct RecordingSettings: Codable, Sendable, Equatable {
    public var kind: RecordingKind
    public var format: RecordingFormat
    /// The file to write (the server chooses it under its recording directory).
    public var path: String
    /// The publisher: a user's uid (track) or the composite's uid.
    public var uid: String
    /// The track's description (`mic`, `camera_big`, `screen`…); nil for a composite (video and audio).
    public var desc: String?
    /// Which streams the file holds (the server knows the source's kinds).
    public var video: Bool
    public var audio: Bool
    /// Seconds the recording waits for its source to come back (a publisher reconnecting) before it ends.
    public var idleTimeoutSeconds: Int

    public init(kind: RecordingKind, format: RecordingFormat, path: String, uid: String, desc: String?, video: Bool, audio: Bool,
                idleTimeoutSeconds: Int = 60) {
        self.kind = kind
        self.format = format
        self.path = path
        self.uid = uid
        self.desc = desc
        self.video = video
        self.audio = audio
        self.idleTimeoutSeconds = idleTimeoutSeconds
    }
}

/// Live output of a composite: HLS files the server serves, and/or an RTMP push.
public struct LiveSettings: Codable, Sendable, Equatable {
    /// Directory of `index.m3u8` and its segments, or nil for no HLS.
    public var hlsDirectory: String?
    /// `rtmp://` URL to push to, or nil.
    public var rtmpURL: String?
    /// Target segment length and playlist length (segments) of HLS.
    public var segmentSeconds: Int
    public var playlistSize: Int
    /// H.264 and AAC bitrates.
    public var videoBitrate: Int
    public var audioBitrate: Int

    public init(hlsDirectory: String?, rtmpURL: String?, segmentSeconds: Int = 2, playlistSize: Int = 6,
                videoBitrate: Int = 2_000_000, audioBitrate: Int = 96_000) {
        self.hlsDirectory = hlsDirectory
        self.rtmpURL = rtmpURL
        self.segmentSeconds = segmentSeconds
        self.playlistSize = playlistSize
        self.videoBitrate = videoBitrate
        self.audioBitrate = audioBitrate
    }

    /// `rtmpUrl`: the codec's snake_case conversion turns `rtmp_url` back into this spelling.
    enum CodingKeys: String, CodingKey {
        case hlsDirectory, segmentSeconds, playlistSize, videoBitrate, audioBitrate
        case rtmpURL = "rtmpUrl"
    }
}
