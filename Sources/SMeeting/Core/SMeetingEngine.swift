import Dispatch
import Foundation
import SMeetingProtocol
import SRTC
import Synchronization

/// The SMeeting SDK's only public class: login, meeting management, entering and exiting
/// meetings, media control, host operations and chat. Built on SRTC's public API (`srtc`) and the
/// meeting WebSocket of the server (docs/meeting-protocol.md).
///
/// ```swift
/// let meeting = SMeetingEngine(url: "https://rtc.example.com")
/// try await meeting.login(token: memberToken)        // from your backend: /stm/srvapi/v1/member/grant
/// let info = try await meeting.createRoom(MeetingCreateReq(title: "Weekly"))
/// try await meeting.enterRoom(MeetingEnterReq(roomNo: info.roomNo))
/// ```
public final class SMeetingEngine: @unchecked Sendable {
    // MARK: - Types

    struct State {
        var client: MeetingClient?
        var uid: String?
        var nickname: String?
        /// An `enter_room` is in flight: events wait for its snapshot.
        var entering = false
        var buffered: [(MeetingEventType, String)] = []
        var room: RoomInfo?
        var users: [String: MeetingUserInfo] = [:]
        var channel: Channel?
        var bridge: ChannelBridge?
        var micTrack: LocalAudioTrack?
        var cameraTrack: LocalVideoTrack?
        var screenTrack: LocalVideoTrack?
        var remoteAudioMuted = false
        /// Views bound by `startPlayRemoteVideo`, per remote track id.
        var playViews: [String: Int] = [:]
        /// The composite track each view of `startPlayRemoteVideoMcu` shows.
        var mcuViews: [ObjectIdentifier: String] = [:]
        /// The channel's leave after a server-side exit (kicked, ended), awaited by whoever asks.
        var leaving: Task<Void, Never>?
    }

    // MARK: - Properties

    /// The shared SRTC engine: use it for what the meeting layer does not cover; never create
    /// another `SRTCEngine` next to it.
    public let srtc: SRTCEngine
    /// Weak multicast of `SMeetingDelegate`, on the SRTC engine's delegate queue (main by default).
    public let delegates: SMeetingDelegates
    /// The server's base URL (`http(s)://host:port`): the meeting WebSocket and the SRTC channel.
    public let url: String
    let state = Mutex(State())
    /// Receives remote audio while `toggleRemoteAudioMute(false)` (the Linux "speaker").
    let remoteAudioRenderers = RendererList<AudioRenderer>()

    /// - Parameters:
    ///   - url: the server's base URL, as for `Channel.join(url:token:)`.
    ///   - configuration: the SRTC engine's configuration; its `delegateQueue` carries meeting
    ///     events too (`.main` by default, as documented; a Linux program without a main loop
    ///     passes its own serial queue).
    public init(url: String, configuration: SRTCEngine.Configuration = .init()) {
        self.url = url
        srtc = SRTCEngine(configuration: configuration)
        delegates = SMeetingDelegates(queue: configuration.delegateQueue)
    }

    /// Events on `delegateQueue` instead of the main queue.
    public convenience init(url: String, delegateQueue: DispatchQueue) {
        self.init(url: url, configuration: .init(delegateQueue: delegateQueue))
    }

    // MARK: - Login

    /// My uid once logged in.
    public var currentUserId: String? { state.withLock { $0.uid } }

    /// Whether `login(token:)` succeeded and the connection is up.
    public var isLoggedIn: Bool { state.withLock { $0.client != nil && $0.uid != nil } }

    /// Logs in with a member token issued by your backend (`POST /stm/srvapi/v1/member/grant`).
    public func login(token: String) async throws {
        guard state.withLock({ $0.client == nil }) else { throw SMeetingError.apiError(code: MeetingErrorCode.wrongState.rawValue, message: "already logged in") }
        let client = try await MeetingClient.connect(url: MeetingClient.webSocketURL(for: url))
        client.start(onEvent: { [weak self] type, text in self?.handleEvent(type, text) },
                     onClose: { [weak self] in self?.connectionLost() })
        do {
            let resp = try await client.call(.login, LoginReq(token: token), LoginResp.self)
            state.withLock {
                $0.client = client
                $0.uid = resp.uid
                $0.nickname = resp.nickname
            }
        } catch {
            client.close()
            throw error
        }
    }

    /// Logs out; exits the meeting first if still in one.
    public func logout() async {
        if isInRoom { await exitRoom() }
        let client = state.withLock { s -> MeetingClient? in
            defer { s.client = nil; s.uid = nil; s.nickname = nil }
            return s.client
        }
        client?.close()
    }

    /// The logged-in connection, or `.notLoggedIn`.
    func loggedIn() throws(SMeetingError) -> MeetingClient {
        guard let client = state.withLock({ $0.client }) else { throw .notLoggedIn }
        return client
    }

    // MARK: - Before the meeting

    /// Creates a meeting hosted by me; returns it with its `meetingId` and `roomNo`.
    public func createRoom(_ req: MeetingCreateReq) async throws -> MeetingInfo {
        try await loggedIn().call(.createRoom, req, MeetingInfo.self)
    }

    /// Changes a meeting I host.
    public func updateRoom(meetingId: String, req: MeetingUpdateReq) async throws -> MeetingInfo {
        try await loggedIn().call(.updateRoom, UpdateRoomReq(meetingId: meetingId, update: req), MeetingInfo.self)
    }

    /// Cancels a meeting I host that has not started.
    public func cancelRoom(meetingId: String) async throws {
        _ = try await loggedIn().call(.cancelRoom, MeetingRef(meetingId: meetingId), MeetingInfo.self)
    }

    /// A meeting by id or room number (give one).
    public func detailRoom(meetingId: String? = nil, roomNo: String? = nil) async throws -> MeetingInfo {
        try await loggedIn().call(.detailRoom, MeetingRef(meetingId: meetingId, roomNo: roomNo), MeetingInfo.self)
    }

    /// Meetings I host or am invited to that are not over (pages from 1).
    public func attendeeRoom(page: Int, pageSize: Int = 20) async throws -> MeetingPage {
        try await loggedIn().call(.attendeeRoom, PageReq(page: page, pageSize: pageSize), MeetingPage.self)
    }

    /// Meetings I attended, the most recent first (pages from 1).
    public func attendedRoom(page: Int, pageSize: Int = 20) async throws -> MeetingPage {
        try await loggedIn().call(.attendedRoom, PageReq(page: page, pageSize: pageSize), MeetingPage.self)
    }

    // MARK: - Internals

    /// The meeting connection closed under us: out of the meeting and logged out.
    private func connectionLost() {
        let wasIn = state.withLock { $0.room != nil }
        if wasIn { tearDown(.disconnected) }
        state.withLock { s in
            s.client = nil
            s.uid = nil
        }
        delegates.notify { [weak self] d in if let self { d.meetingConnectionDidLose(self) } }
    }
}
