import SMeetingProtocol
import SRTCTestSupport
import Synchronization
import Testing
@testable import MeetingServer
@testable import SRTCServer

/// A `MeetingRoom` without sockets: a manual clock, recording connections, the real meeting and
/// app stores on an in-memory SQLite database, and a real (empty) channel manager behind the
/// room's `ChannelControl`, so its channel commands run and find no channel.
struct MeetingRoomHarness {
    let clock = ManualClock()
    let store: MeetingStore
    let meeting: MeetingInfo
    let room: MeetingRoom
    let appId: String
    /// Set when the room reported itself empty (closed or ended).
    let emptied = Flag()
    static let host = "host"

    /// - Parameters:
    ///   - record: the room as another node ran it (`MeetingRoom+Record`).
    init(_ req: MeetingCreateReq, maxMembers: Int = 100, record: MeetingRoomRecord? = nil, returnSeconds: Int = 20) throws {
        let database = try SQLiteDatabase(path: ":memory:")
        try Migrations.server.apply(to: database)
        let apps = try AppStore(database: database)
        appId = try apps.create().appId
        let clock = clock
        store = try MeetingStore(database: database, clock: { clock.now() / 1000 })
        meeting = try store.create(appId: appId, hostUid: Self.host, req)
        let manager = ChannelManager(limits: ChannelLimits(), events: NoChannelEvents(), mediaFactory: { _ in nil })
        let emptied = emptied
        room = MeetingRoom(appId: appId, meeting: meeting, store: store, signer: ChannelGrantSigner(apps: apps),
                           channels: ChannelControl(manager: manager), maxMembers: maxMembers, record: record,
                           returnSeconds: returnSeconds, clock: clock) { _ in emptied.set() }
    }

    /// `uid` enters on a new recording connection; the answer, or the refusal's code.
    func enter(_ uid: String, password: String? = nil, on connection: RecordingMeetingConnection = RecordingMeetingConnection())
        async -> Result<EnterRoomResp, MeetingErrorBody> {
        await room.enterResult(uid: uid, password: password, connection: connection)
    }

    /// `uid` enters and must be admitted (or wait, with `waits`); its connection.
    @discardableResult
    func entered(_ uid: String, password: String? = nil, waits: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) async throws
        -> RecordingMeetingConnection {
        let connection = RecordingMeetingConnection()
        let resp = try await enter(uid, password: password, on: connection).get()
        #expect(resp.waiting == waits, "\(uid) waits: \(resp.waiting)", sourceLocation: sourceLocation)
        #expect((resp.rtc != nil) == !waits, sourceLocation: sourceLocation)
        return connection
    }

    /// Moves the clock and returns once the room has applied every timer that fell due.
    func advance(seconds: Double) async {
        clock.advance(milliseconds: Int64(seconds * 1000))
        await room.settled()
    }
}

extension MeetingRoom {
    /// `enter`, with its refusal as a value (typed throws do not cross the actor hop in a `Result`).
    func enterResult(uid: String, password: String?, connection: MeetingConnection) -> Result<EnterRoomResp, MeetingErrorBody> {
        Result { () throws(MeetingErrorBody) in try enter(uid: uid, nickname: uid, password: password, connection: connection) }
    }

    /// Runs `body` on the room; its refusal as a value (the room's methods throw only
    /// `MeetingErrorBody`; a closure's typed throws is not inferred, so this one takes any).
    func run<T: Sendable>(_ body: @Sendable (isolated MeetingRoom) throws -> T) -> Result<T, MeetingErrorBody> {
        do {
            return .success(try body(self))
        } catch let error as MeetingErrorBody {
            return .failure(error)
        } catch {
            return .failure(MeetingErrorBody(.internalError, "\(error)"))
        }
    }
}

/// A flag set once, from any thread.
final class Flag: Sendable {
    private let state = Atomic<Bool>(false)
    var isSet: Bool { state.load(ordering: .relaxed) }
    func set() { state.store(true, ordering: .relaxed) }
}

/// A member's session as the room sees it: keeps every event it is sent, in order.
final class RecordingMeetingConnection: MeetingConnection {
    private let log = Mutex<(texts: [String], removed: Bool)>(([], false))

    func send(text: String) { log.withLock { $0.texts.append(text) } }
    func removed(from room: MeetingRoom) { log.withLock { $0.removed = true } }

    /// Whether the room took this session out (kicked, ended, replaced, sent away).
    var wasRemoved: Bool { log.withLock { $0.removed } }

    /// The types of the events received, in order.
    var types: [String] { log.withLock { $0.texts }.compactMap { try? MeetingCodec.head(of: $0).type } }

    /// The payloads of the events of `type`, in order.
    func events<T: Decodable>(_ type: MeetingEventType, as: T.Type) -> [T] {
        log.withLock { $0.texts }.filter { (try? MeetingCodec.head(of: $0).type) == type.rawValue }
            .compactMap { try? MeetingCodec.payload(T.self, from: $0) }
    }

    /// Forgets what was received so far.
    func clear() { log.withLock { $0.texts = [] } }
}
