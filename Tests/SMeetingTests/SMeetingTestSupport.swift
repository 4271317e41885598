import Foundation
import MeetingServer
import RTCMedia
import SMeeting
import SRTC
import SRTCProtocol
import SRTCServer
import SRTCTestSupport
import Synchronization
import TestWait
import Testing

struct TestFailure: Error, CustomStringConvertible { let description: String }


/// Records meeting events as short lines.
final class MeetingRecorder: SMeetingDelegate, @unchecked Sendable {
    private let store = Mutex<[String]>([])
    private let chats = Mutex<[ChatMessage]>([])
    /// The ends of a stay (kicked, ended, removed from the waiting room) whose callback found the
    /// engine still in the meeting or its waiting room: the state must have changed before.
    private let toldTooEarly = Mutex<[String]>([])
    var endsToldTooEarly: [String] { toldTooEarly.withLock { $0 } }
    var lines: [String] { store.withLock { $0 } }
    var messages: [ChatMessage] { chats.withLock { $0 } }
    private func add(_ line: String) { store.withLock { $0.append(line) } }
    private func addEnd(_ line: String, _ meeting: SMeetingEngine) {
        if meeting.isInRoom || meeting.isInWaitingRoom { toldTooEarly.withLock { $0.append(line) } }
        add(line)
    }

    func meeting(_ meeting: SMeetingEngine, userDidEnter user: MeetingUserInfo) { add("enter \(user.uid)") }
    func meeting(_ meeting: SMeetingEngine, userDidExit user: MeetingUserInfo, reason: ExitReason) { add("exit \(user.uid) \(reason.rawValue)") }
    func meeting(_ meeting: SMeetingEngine, userMicStateDidChange user: MeetingUserInfo) { add("mic \(user.uid) \(user.micState.rawValue)") }
    func meeting(_ meeting: SMeetingEngine, userCameraStateDidChange user: MeetingUserInfo) { add("camera \(user.uid) \(user.cameraState.rawValue)") }
    func meeting(_ meeting: SMeetingEngine, userRoleDidChange user: MeetingUserInfo) { add("role \(user.uid) \(user.role.rawValue)") }
    func meeting(_ meeting: SMeetingEngine, userHandDidChange user: MeetingUserInfo) { add("hand \(user.uid) \(user.handRaised)") }
    func meeting(_ meeting: SMeetingEngine, roomInfoDidChange room: RoomInfo) { add("room muteAll=\(room.muteAll) host=\(room.hostUid)") }
    func meeting(_ meeting: SMeetingEngine, roomShareDidStart uid: String, shareType: ShareType) { add("share+ \(uid) \(shareType.rawValue)") }
    func meeting(_ meeting: SMeetingEngine, roomShareDidStop uid: String) { add("share- \(uid)") }
    func shareBroadcastDidStart(_ meeting: SMeetingEngine) { add("screen broadcast+") }
    func shareBroadcastDidFinish(_ meeting: SMeetingEngine, reason: String) { add("screen broadcast- \(reason)") }
    func meeting(_ meeting: SMeetingEngine, didReceiveChatMessage message: ChatMessage) {
        chats.withLock { $0.append(message) }
        add("chat \(message.from)->\(message.to ?? "all"): \(message.text)")
    }
    func meeting(_ meeting: SMeetingEngine, adminDidRequestOpenMic adminUid: String) { add("ask mic \(adminUid)") }
    func meeting(_ meeting: SMeetingEngine, adminDidRequestOpenCamera adminUid: String) { add("ask camera \(adminUid)") }
    func meeting(_ meeting: SMeetingEngine, wasKickedBy adminUid: String?) { addEnd("kicked \(adminUid ?? "backend")", meeting) }
    func meetingDidEnd(_ meeting: SMeetingEngine, by adminUid: String?) { addEnd("ended \(adminUid ?? "backend")", meeting) }
    func meeting(_ meeting: SMeetingEngine, didExitRoom reason: ExitReason) { add("out \(reason.rawValue)") }
    func meetingConnectionDidLose(_ meeting: SMeetingEngine) { add("connection lost") }
    func meetingIsReconnecting(_ meeting: SMeetingEngine) { add("reconnecting") }
    func meetingDidReconnect(_ meeting: SMeetingEngine) { add("reconnected") }
    func meeting(_ meeting: SMeetingEngine, userDrawDisabledDidChange user: MeetingUserInfo) { add("draw \(user.uid) \(user.drawDisabled)") }
    func meeting(_ meeting: SMeetingEngine, userPresenterDidChange user: MeetingUserInfo) { add("presenter \(user.uid) \(user.presenter)") }
    func meeting(_ meeting: SMeetingEngine, didEnterWaitingRoom room: RoomInfo) { add("waiting") }
    func meeting(_ meeting: SMeetingEngine, wasAdmittedFromWaitingRoom room: RoomInfo) { add("admitted") }
    func meeting(_ meeting: SMeetingEngine, wasRemovedFromWaitingRoomBy adminUid: String?) { addEnd("removed by \(adminUid ?? "backend")", meeting) }
    func meeting(_ meeting: SMeetingEngine, waitingUserDidEnter user: WaitingUserInfo) { add("waits \(user.uid)") }
    func meeting(_ meeting: SMeetingEngine, waitingUserDidLeave user: WaitingUserInfo, reason: WaitingLeaveReason) {
        add("waited \(user.uid) \(reason.rawValue)")
    }
    func meeting(_ meeting: SMeetingEngine, didMoveToSubMeeting subMeeting: SubMeetingInfo?) { add("moved \(subMeeting?.subMeetingId ?? "main")") }
    func meeting(_ meeting: SMeetingEngine, didReceiveSubMeetingBroadcast message: ChatMessage) { add("broadcast \(message.from): \(message.text)") }
    func meeting(_ meeting: SMeetingEngine, subMeetingHelpRequestedBy uid: String, subMeetingId: String) { add("help \(uid) \(subMeetingId)") }
    func meeting(_ meeting: SMeetingEngine, subMeetingsWillClose countdown: Int) { add("closing \(countdown)") }
    func meetingSubMeetingsDidClose(_ meeting: SMeetingEngine) { add("sub-meetings closed") }
    func meeting(_ meeting: SMeetingEngine, signInDidStart info: SignInInfo) { add("sign-in started") }
    func meeting(_ meeting: SMeetingEngine, signInDidProgress signInId: String, uid: String, signed: Int, total: Int) {
        add("signed \(uid) \(signed)/\(total)")
    }
    func meeting(_ meeting: SMeetingEngine, signInDidEnd result: SignInResult) { add("sign-in ended \(result.signedCount)/\(result.records.count)") }
    func meeting(_ meeting: SMeetingEngine, rollCallDidStart info: SignInInfo) { add("roll call \(info.targetUid ?? "")") }
    func meeting(_ meeting: SMeetingEngine, rollCallDidEnd result: SignInResult) {
        add("roll call ended \(result.signIn.targetUid ?? "") \(result.signedCount == 1 ? "answered" : "missed")")
    }

    func wait(for line: String) async throws {
        try await eventually("'\(line)' in \(lines)") { lines.contains(line) }
    }
}

/// One meeting member: an engine with its own event queue and a recorder.
struct TestMember {
    let engine: SMeetingEngine
    let events = MeetingRecorder()
    let uid: String

    /// - Parameters:
    ///   - url: the server's base URL, or a relay in front of it.
    ///   - audioServer: the PulseAudio server of the member's microphones and speakers.
    init(server: TestServer, uid: String, nickname: String? = nil, url: String? = nil, audioServer: String? = nil) async throws {
        self.uid = uid
        engine = SMeetingEngine(url: url ?? server.httpBase, independent: .init(delegateQueue: DispatchQueue(label: "meeting-\(uid)"), logLevel: .off,
                                                                                 receiveTimeout: 3, mediaBindAddress: "127.0.0.1",
                                                                                 audioServer: audioServer))
        engine.delegates.add(delegate: events)
        try await engine.login(token: server.memberToken(uid: uid, nickname: nickname))
    }

    /// The meeting's SRTC channel now.
    var channel: Channel? { engine.srtc.getChannels().first }

    /// Creates a meeting hosted by this member and enters it.
    func host(_ req: MeetingCreateReq) async throws -> MeetingInfo {
        let meeting = try await engine.createRoom(req)
        try await engine.enterRoom(MeetingEnterReq(meetingId: meeting.meetingId))
        return meeting
    }
}

/// Counts the RTP packets this member receives from `uid`'s tracks of one kind, across tracks
/// that come and go (and channels, for sub-meetings): it polls the receive statistics and adds up
/// each track's increase.
final class PacketCounter: @unchecked Sendable {
    private let counts = Mutex<(last: [String: Int], total: Int)>(([:], 0))
    private let running = Mutex(true)

    init(at member: TestMember, from uid: String, kind: TrackKind, desc: String? = nil) {
        let engine = member.engine
        Task { [weak self] in
            while let self, self.running.withLock({ $0 }) {
                let tracks = engine.srtc.getChannels().first?.remoteTracks(uid: uid).filter { $0.kind == kind && (desc == nil || $0.desc == desc) } ?? []
                self.counts.withLock { c in
                    for track in tracks {
                        let now = track.receiveStatistics?.packetsReceived ?? 0
                        c.total += max(0, now - (c.last[track.id] ?? 0))
                        c.last[track.id] = now
                    }
                }
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    deinit { running.withLock { $0 = false } }

    var total: Int { counts.withLock { $0.total } }

    /// Waits until `more` packets arrived after now.
    func waitForMore(_ more: Int = 20, _ what: String) async throws {
        let start = total
        try await eventually(what) { total >= start + more }
    }

    /// Checks that nothing arrives any more: once the count held still for 300 ms (packets in
    /// flight when the rule took effect have landed), it must not move for `seconds`.
    func expectSilence(seconds: Double = 1, _ what: String) async throws {
        try await waitUntilSettled("\(what): packets to stop arriving (\(total))", quiet: .milliseconds(300)) { total }
        let stable = total
        // Not a wait for a condition: the silence over this time is what is checked.
        try await Task.sleep(for: .seconds(seconds))
        #expect(total == stable, "\(what): \(total - stable) packets arrived after the rule took effect")
    }
}

/// Pushes numbered test-pattern frames and a tone in real time, to the member's camera and mic
/// or to any custom tracks.
final class MeetingMediaPusher: @unchecked Sendable {
    private let running = Mutex(true)
    private let pushed = Mutex(0)

    convenience init(engine: SMeetingEngine, width: Int, height: Int, fps: Int = 30, toneHz: Double = 440) throws {
        try self.init(width: width, height: height, fps: fps, toneHz: toneHz,
                      video: { engine.pushCameraFrame($0) }, audio: { engine.pushMicAudio($0) })
    }

    init(width: Int, height: Int, fps: Int = 30, toneHz: Double = 440,
         video: @escaping @Sendable (VideoFrame) -> Void, audio: @escaping @Sendable (AudioPCMBuffer) -> Void) throws {
        let generator = try TestPatternGenerator(width: width, height: height, frameRate: fps)
        let thread = Thread { [self] in
            var tone = SineToneGenerator(frequency: toneHz, amplitude: 0.4)
            let start = DispatchTime.now().uptimeNanoseconds
            var tick = 0
            var nextVideo = 0.0
            while running.withLock({ $0 }) {
                let elapsed = Double(tick) * 0.01
                if elapsed >= nextVideo {
                    let n = pushed.withLock { p -> Int in defer { p += 1 }; return p }
                    video(generator.videoFrame(number: n))
                    nextVideo += 1 / Double(fps)
                }
                if tick % 2 == 0 { audio(tone.next(frameCount: 960)) }
                tick += 1
                let due = start + UInt64(tick) * 10_000_000
                let now = DispatchTime.now().uptimeNanoseconds
                if due > now { usleep(UInt32((due - now) / 1_000)) }
            }
        }
        thread.start()
    }

    var framesPushed: Int { pushed.withLock { $0 } }
    func stop() { running.withLock { $0 = false } }
}

/// What a member receives: decoded frames (number, size) and PCM.
final class MeetingMediaCollector: VideoRenderer, AudioRenderer, @unchecked Sendable {
    private let frames = Mutex<[(number: Int?, width: Int, height: Int)]>([])
    private let pcm = Mutex<[Float]>([])

    func render(frame: VideoFrame) {
        let number = TestPatternReader.frameNumber(in: frame)
        frames.withLock { $0.append((number, frame.width, frame.height)) }
    }

    func render(pcmBuffer: AudioPCMBuffer) { pcm.withLock { $0 += pcmBuffer.channel(0) } }

    var sizes: Set<String> { Set(frames.withLock { $0.map { "\($0.width)x\($0.height)" } }) }
    var numbers: [Int] { frames.withLock { $0.compactMap(\.number) } }
    /// Frames decoded at this size (a layer too small for the pattern has no readable number).
    func count(width: Int, height: Int) -> Int { frames.withLock { $0.filter { $0.width == width && $0.height == height }.count } }
    /// Frames decoded at this size after the first one at `first`'s size.
    func count(width: Int, height: Int, after first: (width: Int, height: Int)) -> Int {
        frames.withLock { all in
            guard let start = all.firstIndex(where: { $0.width == first.width && $0.height == first.height }) else { return 0 }
            return all[start...].filter { $0.width == width && $0.height == height }.count
        }
    }
    /// The pattern numbers of frames decoded at this size.
    func numbers(width: Int, height: Int) -> [Int] { frames.withLock { $0.filter { $0.width == width && $0.height == height }.compactMap(\.number) } }
    var sampleCount: Int { pcm.withLock { $0.count } }

    /// The tone's frequency over the last second.
    var toneFrequency: Double? {
        let tail = Array(pcm.withLock { $0 }.suffix(48_000))
        return tail.count < 9_600 ? nil : FrequencyEstimator.zeroCrossingFrequency(tail, sampleRate: 48_000)
    }
}
