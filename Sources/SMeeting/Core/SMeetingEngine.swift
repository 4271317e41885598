import Dispatch
import Foundation
import RTCNet
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
public final class SMeetingEngine: Sendable {
    // MARK: - Types

    struct State {
        /// The session's rules: its live connection, what a resume needs, the resume itself and
        /// which events are new (`SMeetingMachine`, fed by `+Resume`).
        var session = SMeetingMachine<MeetingClient>(policy: SMeetingEngine.resumePolicy)
        /// The live meeting connection.
        var client: MeetingClient? { session.link }
        /// The meeting's rules: where I am (entering, waiting, in), its snapshot, its moves and
        /// ways out (`SMeetingRoomMachine`, fed by `+Events`).
        var meeting = SMeetingRoomMachine()
        /// Forwards IM events while `enableIm()` is on.
        var imBridge: IMBridge?
        /// The meeting connection dropped; the SDK is resuming the session.
        var resuming: Bool { session.resuming }
        var channel: Channel?
        var bridge: ChannelBridge?
        /// The key exchange of an end-to-end encrypted meeting's channel (docs/e2ee.md).
        var e2ee: MeetingE2EE?
        /// The host's client waits for more members to leave before rotating (`e2eeMemberLeft`).
        var e2eeRotationScheduled = false
        /// How long the host's client waits after a member left (`e2eeMemberLeft`); tests that
        /// remove several members at once on a loaded machine give it longer.
        var e2eeLeaveSettleNanoseconds = SMeetingEngine.e2eeLeaveSettleNanoseconds
        /// Channel switches (sub-meetings, admission) run one after the other.
        var channelSwitch: Task<Void, Never>?
        var micTrack: LocalAudioTrack?
        var cameraTrack: LocalCameraTrack?
        var screenTrack: LocalVideoTrack?
        var viewCaptureTrack: LocalVideoTrack?
        /// The broadcast listener's track and its event bridge (`prepareBroadcastShare`), kept
        /// across channel switches until the meeting is left; `screenTrack` too once published.
        var broadcastTrack: LocalCustomVideoTrack?
        var broadcastBridge: BroadcastBridge?
        var remoteAudioMuted = false
        /// The engine's speaker was started by the meeting (not by the app): stopped when it ends.
        var startedSpeaker = false
        /// Where the camera faces (Apple platforms, `switchCamera()` without a deviceId).
        var cameraFacing = CameraDirection.front
        /// Views bound by `startPlayRemoteVideo` and explicit subscriptions, per remote video track id.
        var videoBindings: [String: VideoBindings] = [:]
        /// The composite track each view of `startPlayRemoteVideoMcu` shows (its binding is in `videoBindings`).
        var mcuViews: [ObjectIdentifier: String] = [:]
        /// The channel's leave after a server-side exit (kicked, ended), awaited by whoever asks.
        var leaving: Task<Void, Never>?

        /// Forgets the channel and everything published or bound in it.
        mutating func dropChannel() {
            channel = nil
            bridge = nil
            e2ee = nil
            micTrack = nil
            cameraTrack = nil
            screenTrack = nil
            viewCaptureTrack = nil
            videoBindings = [:]
            mcuViews = [:]
        }

        /// Forgets the login (logout, or a session that could not be resumed); returns the
        /// connection to close.
        mutating func dropLogin() -> MeetingClient? {
            _ = meeting.handle(.loggedOut)
            return session.logOut()
        }
    }

    // MARK: - Properties

    /// The process's SRTC engine (`SRTCEngine.sharedEngine()`): use it for what the meeting layer
    /// does not cover; another `SRTCEngine` next to it is refused (`.conflict`).
    public let srtc: SRTCEngine
    /// Weak multicast of `SMeetingDelegate`, on the SRTC engine's delegate queue (main by default).
    public let delegates: SMeetingDelegates
    /// The server's base URL (`http(s)://host:port`): the meeting WebSocket and the SRTC channel.
    public let url: String
    let state = Mutex(State())
    /// Receives remote audio while `toggleRemoteAudioMute(false)` (the Linux "speaker").
    let remoteAudioRenderers = WeakList<AudioRenderer>()

    /// - Parameters:
    ///   - url: the server's base URL, as for `Channel.join(url:token:)`.
    ///   - configuration: the configuration of the process's SRTC engine when this makes it; its
    ///     `delegateQueue` carries meeting events too (`.main` by default, as documented; a Linux
    ///     program without a main loop passes its own serial queue). When an engine lives already
    ///     (the app made it, or an earlier `SMeetingEngine`), the meeting uses that one and its
    ///     configuration, and `configuration` is not used.
    public convenience init(url: String, configuration: SRTCEngine.Configuration = .init()) {
        self.init(url: url, srtc: SRTCEngine.sharedEngine(orMakeWith: configuration))
    }

    /// A meeting engine on an SRTC engine outside the one-per-process rule, for this package's
    /// tests that play several members in one process.
    package convenience init(url: String, independent configuration: SRTCEngine.Configuration) {
        self.init(url: url, srtc: SRTCEngine(independent: configuration))
    }

    private init(url: String, srtc: SRTCEngine) {
        self.url = url
        self.srtc = srtc
        delegates = SMeetingDelegates(queue: srtc.configuration.delegateQueue)
    }

    /// Events on `delegateQueue` instead of the main queue.
    public convenience init(url: String, delegateQueue: DispatchQueue) {
        self.init(url: url, configuration: .init(delegateQueue: delegateQueue))
    }

    // MARK: - Login

    /// My uid once logged in.
    public var currentUserId: String? { state.withLock { $0.meeting.me?.uid } }

    /// Whether `login(token:)` succeeded and the session lives (its connection may be resuming).
    public var isLoggedIn: Bool { state.withLock { $0.session.isLive && $0.meeting.me != nil } }

    /// Logs in with a member token issued by your backend (`POST /stm/srvapi/v1/member/grant`).
    public func login(token: String) async throws {
        guard state.withLock({ !$0.session.isLive }) else {
            throw SMeetingError.apiError(code: MeetingErrorCode.wrongState.rawValue, message: "already logged in")
        }
        let (client, resp) = try await connect(LoginReq(token: token))
        state.withLock {
            _ = $0.meeting.handle(.loggedIn(uid: resp.uid, nickname: resp.nickname))
            _ = $0.session.handle(.loggedIn(client, token: token, sessionId: resp.sessionId, graceSeconds: resp.reconnectGraceSeconds),
                                  now: Monotonic.seconds())
        }
    }

    /// Logs out; exits the meeting first if still in one.
    public func logout() async {
        if isInRoom || isInWaitingRoom { await exitRoom() }
        disableIm()
        let client = state.withLock { $0.dropLogin() }
        guard let client else { return }
        _ = try? await client.call(.logout, EmptyPayload(), EmptyPayload.self, timeout: .seconds(3))
        client.close()
    }

    /// Opens a meeting WebSocket and logs in on it (a resume when `req` names a session).
    /// - Parameter onAnswer: runs on the reader with the connection and the login's answer, before
    ///   any event sent after it.
    func connect(_ req: LoginReq, onAnswer: (@Sendable (MeetingClient, LoginResp) -> Void)? = nil) async throws -> (MeetingClient, LoginResp) {
        // The SRTC engine's `trustedCAFile` verifies a wss:// meeting server as it does signaling.
        let tls = srtc.configuration.trustedCAFile.map(TLSConfiguration.trusting(caFile:)) ?? .clientDefault
        let client = try await MeetingClient.connect(url: MeetingClient.webSocketURL(for: url), tls: tls)
        client.start(onEvent: { [weak self] type, text in self?.receiveEvent(type, text) },
                     onClose: { [weak self, weak client] in if let self, let client { self.connectionDropped(client) } })
        do {
            var hook: (@Sendable (LoginResp) -> Void)?
            if let onAnswer { hook = { resp in onAnswer(client, resp) } }
            return (client, try await client.call(.login, req, LoginResp.self, onResponse: hook))
        } catch {
            client.close()
            throw error
        }
    }

    /// The logged-in connection, or `.notLoggedIn`.
    func loggedIn() throws(SMeetingError) -> MeetingClient {
        let (client, resuming) = state.withLock { ($0.client, $0.resuming) }
        guard let client else { throw resuming ? .internalError("the meeting connection is being resumed") : .notLoggedIn }
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

    /// The sign-ins and roll calls of a meeting I host, with who answered and when; readable
    /// after the meeting too (login only).
    public func getSignInResults(meetingId: String) async throws -> [SignInResult] {
        try await loggedIn().call(.signInResults, SignInResultsReq(meetingId: meetingId), SignInResultsResp.self).results
    }
}
