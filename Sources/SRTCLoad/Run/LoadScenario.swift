import RTCMedia
import SRTCProtocol

/// What a load test runs: `rooms` rooms, each with `publishers` participants who publish a camera
/// and a microphone and subscribe to each other, and `subscribers` who only subscribe to every
/// publisher of their room; for `duration` seconds. Bounded, so one machine's load generator
/// cannot be asked for more threads and sockets than it has.
package struct LoadScenario: Codable, Sendable, Equatable {
    package var rooms: Int
    package var publishers: Int
    package var subscribers: Int
    /// Seconds measured (after everyone is set up).
    package var duration: Double
    /// Cameras send two simulcast layers (`camera_big`, `camera_small`).
    package var simulcast: Bool
    /// The layer subscribers ask for (`camera_big` or `camera_small`); nil for the best.
    package var layer: String?
    package var audio: Bool
    package var video: Bool
    /// Participants joining per second (a server limits joins per channel per second).
    package var joinRate: Double
    /// The camera's codec: nil for VP8; `"av1"` sends it as one AV1 stream of two spatial layers
    /// (L2T3_KEY, with Dependency Descriptors) named as the simulcast layers (needs `simulcast`).
    package var videoCodec: String?

    package init(rooms: Int = 1, publishers: Int = 1, subscribers: Int = 1, duration: Double = 10, simulcast: Bool = false,
                 layer: String? = nil, audio: Bool = true, video: Bool = true, joinRate: Double = 20, videoCodec: String? = nil) {
        self.rooms = rooms
        self.publishers = publishers
        self.subscribers = subscribers
        self.duration = duration
        self.simulcast = simulcast
        self.layer = layer
        self.audio = audio
        self.video = video
        self.joinRate = joinRate
        self.videoCodec = videoCodec
    }

    /// The camera is one scalable stream (two spatial layers, L2T3_KEY) in this codec: `av1` or
    /// `vp9`; nil for VP8 (one stream, or simulcast).
    var scalableCodec: VideoCodec? {
        switch videoCodec {
        case "av1": .av1
        case "vp9": .vp9
        default: nil
        }
    }

    // MARK: - Bounds

    static let maxRooms = 200
    static let maxPublishersPerRoom = 16
    static let maxSubscribersPerRoom = 500
    /// Each participant holds one or two transports, each a socket (and, without shared I/O
    /// threads, a thread). 1 200: the capacity search's rooms of 4+46 with shared I/O threads
    /// reached 600 with two workers still below their limit (docs/benchmarks.md).
    static let maxParticipants = 1200
    static let maxDuration = 3600.0

    /// Every participant of a room.
    package var participantsPerRoom: Int { publishers + subscribers }

    /// Streams each subscribing participant receives from one publisher.
    var streamsPerPublisher: Int { (audio ? 1 : 0) + (video ? 1 : 0) }

    /// Streams received over the whole run (every subscription of every participant).
    package var subscribedStreams: Int {
        rooms * (publishers * (publishers - 1) + subscribers * publishers) * streamsPerPublisher
    }

    /// Throws `LoadError.invalidScenario` naming the first value out of bounds.
    package func validate() throws(LoadError) {
        func check(_ ok: Bool, _ text: String) throws(LoadError) { if !ok { throw .invalidScenario(text) } }
        try check((1...Self.maxRooms).contains(rooms), "rooms must be 1...\(Self.maxRooms)")
        try check((1...Self.maxPublishersPerRoom).contains(publishers), "publishers must be 1...\(Self.maxPublishersPerRoom) per room")
        try check((0...Self.maxSubscribersPerRoom).contains(subscribers), "subscribers must be 0...\(Self.maxSubscribersPerRoom) per room")
        try check(rooms * participantsPerRoom <= Self.maxParticipants,
                  "at most \(Self.maxParticipants) participants in all (rooms × (publishers + subscribers))")
        try check(duration >= 1 && duration <= Self.maxDuration, "duration must be 1...\(Int(Self.maxDuration)) seconds")
        try check(audio || video, "send audio, video or both")
        try check(subscribers > 0 || publishers > 1, "nobody would receive anything: add subscribers or a second publisher")
        try check(joinRate > 0 && joinRate <= 1000, "join rate must be in (0, 1000] per second")
        if let videoCodec {
            try check(scalableCodec != nil, "video codec must be av1 or vp9 (or none for VP8)")
            try check(simulcast, "an AV1 or VP9 camera is sent with two spatial layers: it needs --simulcast")
        }
        if let layer {
            try check(layer == TrackDescName.cameraBig || layer == TrackDescName.cameraSmall, "layer must be camera_big or camera_small")
            try check(simulcast, "--layer needs --simulcast")
        }
    }

    /// `1→50`, `10 rooms × 5`.
    package var label: String {
        let core = subscribers > 0 && publishers == 1 ? "1→\(subscribers)" : "\(publishers)+\(subscribers)"
        return rooms == 1 ? core : "\(rooms) rooms × \(core)"
    }
}
