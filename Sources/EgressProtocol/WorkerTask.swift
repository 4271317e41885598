// The conversation between the server's egress supervisor and one `srtc-egress` worker process:
// the task as the first line of the worker's standard input, then commands, one JSON object per
// line; events back on its standard output, one per line (docs/egress.md, "Workers").

import SRTCProtocol

/// A worker's task: where to join and what to make.
public struct WorkerTask: Codable, Sendable, Equatable {
    /// The server's id of the task (`CP_…` composite, `RC_…` recording, `IN_…` ingress, `CC_…` captions).
    public var taskId: String
    /// The server to join (`http://127.0.0.1:7880`, `https://…` with TLS on).
    public var serverURL: String
    /// With TLS on, the PEM file of the certificate the server presents (its `--tls-cert`): the
    /// worker trusts exactly that certificate, since `127.0.0.1` is not a name it carries.
    public var serverCertificate: String?
    public var channel: String
    /// A hidden channel token the server minted for this worker.
    public var token: String
    public var composite: CompositeSettings?
    public var recording: RecordingSettings?
    /// Live output to start with the composite.
    public var live: LiveSettings?
    /// Keys to decrypt end-to-end encrypted tracks with (the trusted recorder), or nil.
    public var e2ee: EgressE2EEKeys?
    /// An ingress: media pushed or pulled in and published under its uid.
    public var ingress: IngressSettings?
    /// Live captions: every user heard and transcribed.
    public var captions: CaptionSettings?

    public init(taskId: String, serverURL: String, channel: String, token: String, composite: CompositeSettings? = nil,
                recording: RecordingSettings? = nil, live: LiveSettings? = nil, serverCertificate: String? = nil,
                e2ee: EgressE2EEKeys? = nil, ingress: IngressSettings? = nil, captions: CaptionSettings? = nil) {
        self.taskId = taskId
        self.serverURL = serverURL
        self.serverCertificate = serverCertificate
        self.channel = channel
        self.token = token
        self.composite = composite
        self.recording = recording
        self.live = live
        self.e2ee = e2ee
        self.ingress = ingress
        self.captions = captions
    }

    /// `serverUrl`: the codec's snake_case conversion turns `server_url` back into this spelling.
    enum CodingKeys: String, CodingKey {
        case taskId, channel, token, composite, recording, live, serverCertificate, e2ee, ingress, captions
        case serverURL = "serverUrl"
    }
}

/// What the server tells a running worker.
public enum WorkerCommand: Sendable, Equatable {
    /// Finish: finalize files, leave the channel, exit.
    case stop
    /// Re-lay the composite without restarting.
    case setLayout(EgressLayout)
    /// Start live output of the composite.
    case startLive(LiveSettings)
    /// Stop live output (the playlist gets its end tag).
    case stopLive
    /// Add keys (a ratchet's new key, a participant who came later) for encrypted tracks.
    case setE2EEKeys(EgressE2EEKeys)
    /// A fresh channel token for the joins still to come (an ingress joins at every push, for
    /// longer than one token lives).
    case setToken(String)
}

/// What a worker tells the server.
public enum WorkerEvent: Sendable, Equatable {
    /// Joined and producing (publishing the composite, or recording).
    case started
    /// Live output is on the air.
    case liveStarted
    /// Live output ended (stopped, or failed with `error`).
    case liveEnded(error: String?)
    /// A recording's file was finalized.
    case finished(RecordingResult)
    /// The task failed; `code` is an API error name (`storage_failed`, `not_found`, …).
    case failed(code: String, message: String)
    /// The task ended on its own: the channel closed, the source or the users stayed away.
    case ended(reason: String)
    /// An ingress's encoder connected (or its pulled URL opened) and its user is publishing.
    case inputStarted(IngressInput)
    /// The current push's media changed how it is published (H.264 passed through that started
    /// B-frames is re-encoded from then on: `videoMode` `reencode`). No new push, no webhook.
    case inputChanged(IngressInput)
    /// An ingress's input ended (the encoder disconnected, the URL ended or failed); the
    /// worker listens again (RTMP, SRT) or ends (URL).
    case inputEnded(reason: String)
    /// A caption worker recognised speech: a partial or a turn's final.
    case caption(Caption)
}

/// What an ingress's input carries, as the worker found it.
public struct IngressInput: Codable, Sendable, Equatable {
    /// libavcodec's names of the input's codecs (`h264`, `aac`, …).
    public var videoCodec: String?
    public var audioCodec: String?
    public var width: Int
    public var height: Int
    /// How the video is published: `passthrough` (H.264 as it came), `transcode` (decoded and
    /// encoded as VP8) or `reencode` (H.264 that started B-frames mid-push, decoded and encoded
    /// again as H.264 without them into the same track); nil without video.
    public var videoMode: String?

    public init(videoCodec: String?, audioCodec: String?, width: Int, height: Int, videoMode: String? = nil) {
        self.videoCodec = videoCodec
        self.audioCodec = audioCodec
        self.width = width
        self.height = height
        self.videoMode = videoMode
    }
}

/// What a finished recording holds.
public struct RecordingResult: Codable, Sendable, Equatable {
    public var bytes: Int64
    public var durationMs: Int64
    public var videoFrames: Int
    public var audioFrames: Int
    /// Whether every write succeeded and the trailer was written.
    public var complete: Bool

    public init(bytes: Int64, durationMs: Int64, videoFrames: Int, audioFrames: Int, complete: Bool) {
        self.bytes = bytes
        self.durationMs = durationMs
        self.videoFrames = videoFrames
        self.audioFrames = audioFrames
        self.complete = complete
    }
}
