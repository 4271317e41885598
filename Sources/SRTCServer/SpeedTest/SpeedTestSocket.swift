import Foundation
import RTCCrypto
import RTCNet
import RTCWire
import SRTCProtocol
import Synchronization

/// The speed test over a WebSocket (`/rtc/v1/speedtest`, docs/speed-test.md, "Browsers"): the
/// same datagrams as binary messages, for clients that cannot send raw UDP. The session is the
/// socket; downlink load is pulled (`downlink_pull`), so the server never queues more than the
/// client asked for.
final class SpeedTestSocket: Sendable {
    static let path = "/rtc/v1/speedtest"
    /// Downlink messages one pull may ask for.
    static let maxPullCount = 64

    private let socket: WebSocket
    private let settings: SpeedTestSettings
    private let keyForIssuer: @Sendable (String) -> String?
    private let sessions: SpeedTestSocketCount
    private let clock = SpeedTestClock()
    private let session = Mutex<SpeedTestSession?>(nil)

    init(socket: WebSocket, settings: SpeedTestSettings, sessions: SpeedTestSocketCount, keyForIssuer: @escaping @Sendable (String) -> String?) {
        self.socket = socket
        self.settings = settings
        self.sessions = sessions
        self.keyForIssuer = keyForIssuer
    }

    /// Reads until the socket closes; a socket without a hello within 10 s is closed.
    func start() {
        let messages = socket.messages
        Task { [self] in
            let helloTimeout = Task { [self] in
                try? await TimerQueue.shared.sleep(for: .seconds(10))
                guard !Task.isCancelled, session.withLock({ $0 == nil }) else { return }
                socket.close(code: .policyViolation, reason: "no hello within 10 s")
            }
            for await message in messages {
                guard case .binary(let bytes) = message, let packet = try? SpeedTestPacket(bytes: bytes) else {
                    socket.close(code: .unsupportedData, reason: "not a speed-test datagram")
                    break
                }
                receive(packet)
            }
            helloTimeout.cancel()
            if session.withLock({ $0 != nil }) { sessions.release() }
        }
    }

    private func receive(_ packet: SpeedTestPacket) {
        let now = clock.now
        if packet.kind == .hello {
            return hello(packet, now: now)
        }
        if packet.kind == .bye {
            return socket.close(code: .normalClosure, reason: "bye")
        }
        let outcome = session.withLock { s -> (answer: SpeedTestPacket?, pull: (Int, Int)?, expired: Bool)? in
            guard var current = s, current.id == packet.session else { return nil }
            guard !current.isExpired(now: now) else { return (nil, nil, true) }
            if case .downlinkPull(let size, let count) = packet.body {
                let bounded = (min(max(Int(size), SpeedTestPacket.headerSize), SpeedTestPacket.maximumSize), min(Int(count), Self.maxPullCount))
                current.heard(now: now)
                s = current
                return (nil, bounded, false)
            }
            let answer = current.receive(packet, now: now)
            s = current
            return (answer, nil, false)
        }
        guard let outcome else { return }
        if outcome.expired { return socket.close(code: .normalClosure, reason: "the session's time is up") }
        if let answer = outcome.answer { socket.send(binary: answer.bytes) }
        if let (size, count) = outcome.pull {
            for i in 0..<count {
                socket.send(binary: SpeedTestPacket(kind: .downlinkData, session: packet.session, sequence: packet.sequence &+ UInt32(i),
                                                    timestampMicros: now, size: size).bytes)
            }
        }
    }

    private func hello(_ packet: SpeedTestPacket, now: UInt64) {
        guard case .hello(let token) = packet.body, session.withLock({ $0 == nil }) else { return }
        let code: APIErrorCode
        switch SpeedTestResponder.authorize(token, now: Int64(Date().timeIntervalSince1970), keyForIssuer: keyForIssuer) {
        case .accepted(let key):
            guard sessions.acquire(limit: settings.maxSessions) else {
                code = .limitReached
                break
            }
            let opened = SpeedTestSession(id: SecureRandom.uint64() | 1, address: socket.remoteAddress ?? SocketAddress(ipv4: (0, 0, 0, 0), port: 0),
                                          tokenKey: key, limits: settings.limits, now: now)
            session.withLock { $0 = opened }
            socket.send(binary: SpeedTestPacket(kind: .welcome, session: opened.id, body: .welcome(opened.limits)).bytes)
            return
        case .refused(let refused): code = refused
        case .unknown: code = .invalidToken
        }
        socket.send(binary: SpeedTestPacket(kind: .reject, body: .reject(code: UInt32(code.rawValue))).bytes)
        socket.close(code: .policyViolation, reason: "speed test refused")
    }
}

/// Speed tests running over WebSockets, against `SpeedTestSettings.maxSessions`.
final class SpeedTestSocketCount: Sendable {
    private let count = Mutex(0)

    func acquire(limit: Int) -> Bool {
        count.withLock { n in
            guard n < limit else { return false }
            n += 1
            return true
        }
    }

    func release() { count.withLock { $0 -= 1 } }
}
