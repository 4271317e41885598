import SRTCProtocol

/// Something that happened to a channel outside a request: a media event of the SFU or a timer.
/// The room applies each in `ChannelRoom.apply(_:)`.
enum RoomEvent: Sendable {
    /// The subscribe transport of `uid` needs (re)negotiation: send this offer.
    case subscriberOffer(uid: String, sdp: String, revision: Int)
    /// A simulcast switch took effect on `subscriber`'s subscription to `trackId`.
    case layerSwitched(subscriber: String, trackId: String, layer: String, previous: String?, cause: String)
    /// Dynacast: the layers of `trackId` some subscriber needs changed (its publisher gets them).
    case layersNeeded(trackId: String, layers: [String])
    /// The channel's speakers changed (everyone gets the list).
    case activeSpeakers(ActiveSpeakersSnapshot)
    /// One participant's periodic link report (that participant gets it), as one router measured
    /// it: the channel's, or the other worker's that serves the participant's subscriptions
    /// (`QualityReportMerger` makes one of the two).
    case qualityReport(QualityReport, QualityReportMerger.Source)
    /// A participant's quality level changed on one router (everyone gets the worse of them).
    case connectionQuality(ConnectionQualityChange, QualityReportMerger.Source)
    /// A data channel of `uid`'s media (`owner`, the `ParticipantMedia`) opened.
    case dataChannelOpened(uid: String, owner: ObjectIdentifier, DataChannelConnection)
    /// A data channel of `uid`'s transport closed; `channel` nil: all of them.
    case dataChannelClosed(uid: String, transport: String, channel: UInt16?)
    /// The resume grace period of a session whose WebSocket dropped has passed.
    case graceExpired(uid: String, sessionId: String)
    /// A session's token expired.
    case tokenExpired(uid: String, sessionId: String)
    /// A media transport of `uid`'s media (`owner`, the `ParticipantMedia`) failed: ICE consent
    /// expired (RFC 7675) or DTLS failed.
    case mediaFailed(uid: String, owner: ObjectIdentifier)
}

/// Where a participant's media posts its events (the subscribe transport's offers): its room's
/// inbox, or, for a session whose subscriptions a relaying node serves, the answer of the call
/// that caused them (`EdgeChannel`).
protocol MediaEventSink: Sendable {
    @discardableResult
    func post(_ event: RoomEvent) -> Bool
}

/// The one serial path into a `ChannelRoom` (docs/architecture.md, "One ordered stream per room").
///
/// Everything that changes a channel (signaling requests, the SFU's events, timers, server API
/// calls) is posted here, synchronously and without blocking, and one task applies the entries
/// one at a time, each to completion, in the order they were posted. Whoever posts from one
/// context (the SFU's I/O thread, a session's read loop) therefore sees its events applied in
/// the order it raised them, and no two changes of a room interleave at an `await`.
///
/// The inbox holds no reference to its room, so the media side and timers can keep it without
/// keeping the room alive. After `finish` (the room closed) a post is refused: fire-and-forget
/// events are dropped, and requests get the room's closed answer (`ChannelRoom.perform`).
final class RoomInbox: MediaEventSink {
    /// A request with an answer, run on the room's actor.
    typealias Job = @Sendable (isolated ChannelRoom) async -> Void

    enum Entry: Sendable {
        case event(RoomEvent)
        case job(Job)
    }

    /// Read once, by the room's drain task.
    let entries: AsyncStream<Entry>
    private let continuation: AsyncStream<Entry>.Continuation

    init() {
        (entries, continuation) = AsyncStream.makeStream(of: Entry.self)
    }

    /// Queues an event; `false` when the room is closed (the event is dropped).
    @discardableResult
    func post(_ event: RoomEvent) -> Bool {
        if case .enqueued = continuation.yield(.event(event)) { return true }
        return false
    }

    /// Queues a job; `false` when the room is closed (the job will never run).
    func post(job: @escaping Job) -> Bool {
        if case .enqueued = continuation.yield(.job(job)) { return true }
        return false
    }

    /// Refuses later posts; what is already queued is still applied.
    func finish() {
        continuation.finish()
    }
}
