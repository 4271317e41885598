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

struct TestFailure: Error, CustomStringConvertible { let description: String }

extension TestServer {
    /// A server with the meeting backend.
    static func withMeetings() throws -> TestServer { try TestServer(modules: [MeetingModule.factory]) }

    /// A member token as `/stm/srvapi/v1/member/grant` issues it.
    func memberToken(uid: String, nickname: String? = nil) -> String {
        let now = Int64(Date().timeIntervalSince1970)
        return AccessToken.sign(TokenClaims(iss: Self.appId, sub: uid, iat: now, nbf: now, exp: now + 3600, jti: UUID().uuidString,
                                            member: MemberGrant(nickname: nickname)), key: Self.appKey)
    }
}

/// Records meeting events as short lines.
final class MeetingRecorder: SMeetingDelegate, @unchecked Sendable {
    private let store = Mutex<[String]>([])
    private let chats = Mutex<[ChatMessage]>([])
    var lines: [String] { store.withLock { $0 } }
    var messages: [ChatMessage] { chats.withLock { $0 } }
    private func add(_ line: String) { store.withLock { $0.append(line) } }

    func meeting(_ meeting: SMeetingEngine, userDidEnter user: MeetingUserInfo) { add("enter \(user.uid)") }
    func meeting(_ meeting: SMeetingEngine, userDidExit user: MeetingUserInfo, reason: ExitReason) { add("exit \(user.uid) \(reason.rawValue)") }
    func meeting(_ meeting: SMeetingEngine, userMicStateDidChange user: MeetingUserInfo) { add("mic \(user.uid) \(user.micState.rawValue)") }
    func meeting(_ meeting: SMeetingEngine, userCameraStateDidChange user: MeetingUserInfo) { add("camera \(user.uid) \(user.cameraState.rawValue)") }
    func meeting(_ meeting: SMeetingEngine, userRoleDidChange user: MeetingUserInfo) { add("role \(user.uid) \(user.role.rawValue)") }
    func meeting(_ meeting: SMeetingEngine, userHandDidChange user: MeetingUserInfo) { add("hand \(user.uid) \(user.handRaised)") }
    func meeting(_ meeting: SMeetingEngine, roomInfoDidChange room: RoomInfo) { add("room muteAll=\(room.muteAll) host=\(room.hostUid)") }
    func meeting(_ meeting: SMeetingEngine, roomShareDidStart uid: String, shareType: ShareType) { add("share+ \(uid) \(shareType.rawValue)") }
    func meeting(_ meeting: SMeetingEngine, roomShareDidStop uid: String) { add("share- \(uid)") }
    func meeting(_ meeting: SMeetingEngine, didReceiveChatMessage message: ChatMessage) {
        chats.withLock { $0.append(message) }
        add("chat \(message.from)->\(message.to ?? "all"): \(message.text)")
    }
    func meeting(_ meeting: SMeetingEngine, adminDidRequestOpenMic adminUid: String) { add("ask mic \(adminUid)") }
    func meeting(_ meeting: SMeetingEngine, adminDidRequestOpenCamera adminUid: String) { add("ask camera \(adminUid)") }
    func meeting(_ meeting: SMeetingEngine, wasKickedBy adminUid: String?) { add("kicked \(adminUid ?? "backend")") }
    func meetingDidEnd(_ meeting: SMeetingEngine, by adminUid: String?) { add("ended \(adminUid ?? "backend")") }
    func meeting(_ meeting: SMeetingEngine, didExitRoom reason: ExitReason) { add("out \(reason.rawValue)") }

    func wait(for line: String) async throws {
        try await waitUntil("'\(line)' in \(lines)") { lines.contains(line) }
    }
}

/// One meeting member: an engine with its own event queue and a recorder.
struct TestMember {
    let engine: SMeetingEngine
    let events = MeetingRecorder()

    init(server: TestServer, uid: String, nickname: String? = nil) async throws {
        engine = SMeetingEngine(url: server.httpBase, configuration: .init(delegateQueue: DispatchQueue(label: "meeting-\(uid)"), logLevel: .off,
                                                                          receiveTimeout: 3, mediaBindAddress: "127.0.0.1"))
        engine.delegates.add(delegate: events)
        try await engine.login(token: server.memberToken(uid: uid, nickname: nickname))
    }
}

/// Pushes numbered test-pattern frames into the camera and a tone into the mic, in real time.
final class MeetingMediaPusher: @unchecked Sendable {
    private let running = Mutex(true)
    private let pushed = Mutex(0)

    init(engine: SMeetingEngine, width: Int, height: Int, fps: Int = 30, toneHz: Double = 440) throws {
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
                    engine.pushCameraFrame(generator.videoFrame(number: n))
                    nextVideo += 1 / Double(fps)
                }
                if tick % 2 == 0 { engine.pushMicAudio(tone.next(frameCount: 960)) }
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
    /// The pattern numbers of frames decoded at this size.
    func numbers(width: Int, height: Int) -> [Int] { frames.withLock { $0.filter { $0.width == width && $0.height == height }.compactMap(\.number) } }
    var sampleCount: Int { pcm.withLock { $0.count } }

    /// The tone's frequency over the last second.
    var toneFrequency: Double? {
        let tail = Array(pcm.withLock { $0 }.suffix(48_000))
        return tail.count < 9_600 ? nil : FrequencyEstimator.zeroCrossingFrequency(tail, sampleRate: 48_000)
    }
}
