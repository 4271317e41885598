import Foundation
import RTCCrypto
import RTCNet
import RTCTransport
import RTCWire
import SRTCProtocol

/// Answers the network speed test on the media port (docs/speed-test.md).
///
/// It cannot be used to reflect or amplify traffic: a datagram that does not belong to a live
/// session, or a hello whose token does not verify, gets no answer at all; the answer to a hello
/// (welcome or reject) is shorter than the hello; pongs and reports are no longer than the ping
/// or request they answer; and downlink load goes only to the address that completed a hello,
/// under the session's limits. Hellos are rate-limited per IP address before any token work.
///
/// Runs on the media port's I/O thread (`MediaPortService`); `receive` and `tick` take the clock
/// and the send function as arguments so tests drive it without a socket.
// @unchecked Sendable: sessions, hellos and the sweep time are touched only on the media port's I/O thread (`receive` and `tick`).
final class SpeedTestResponder: MediaPortService, @unchecked Sendable {
    /// Queues one datagram to an address; `write` fills the slot and returns its length.
    typealias Send = (SocketAddress, (UnsafeMutableRawBufferPointer) -> Int?) -> Bool

    /// An IP address without its port, for the per-address hello limit.
    private struct AddressKey: Hashable {
        let family: SocketAddress.Family
        let high: UInt64
        let low: UInt64
        init(_ a: SocketAddress) { family = a.family; high = a.high; low = a.low }
    }

    private let settings: SpeedTestSettings
    private let keyForIssuer: @Sendable (String) -> String?
    private let wallClock: @Sendable () -> Int64
    private let clock = SpeedTestClock()
    // I/O thread only.
    private var sessions: [UInt64: SpeedTestSession] = [:]
    private var hellos: [AddressKey: (windowStart: UInt64, count: Int)] = [:]
    private var lastSweepMicros: UInt64 = 0
    /// Entries of the hello table; past this, hellos from new addresses are dropped until a sweep.
    static let maxTrackedAddresses = 10_000

    /// - Parameters:
    ///   - keyForIssuer: the `app_key` of an `app_id` (token verification).
    ///   - wallClock: Unix seconds, for token validity.
    init(settings: SpeedTestSettings, keyForIssuer: @escaping @Sendable (String) -> String?,
         wallClock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }) {
        self.settings = settings
        self.keyForIssuer = keyForIssuer
        self.wallClock = wallClock
    }

    /// Live sessions (I/O thread; tests).
    var sessionCount: Int { sessions.count }

    // MARK: - MediaPortService

    func mediaPort(_ port: MediaPort, receive bytes: UnsafeRawBufferPointer, from source: SocketAddress) {
        receive(bytes, from: source, now: clock.now, send: port.send)
    }

    func mediaPort(_ port: MediaPort, tick now: ContinuousClock.Instant) {
        tick(now: clock.micros(now), send: port.send)
    }


    // MARK: - Datagrams

    /// Handles one datagram from `source` at `now` (microseconds on the responder's clock).
    func receive(_ bytes: UnsafeRawBufferPointer, from source: SocketAddress, now: UInt64, send: Send) {
        guard let packet = try? SpeedTestPacket(parsing: bytes) else { return }
        if packet.kind == .hello {
            hello(packet, from: source, now: now, send: send)
            return
        }
        // Anything else must name a live session and come from the address that opened it.
        guard var session = sessions[packet.session], session.address == source, !session.isExpired(now: now) else { return }
        if packet.kind == .bye {
            sessions[packet.session] = nil
            return
        }
        let answer = session.receive(packet, now: now)
        sessions[packet.session] = session
        if let answer { _ = send(source) { answer.serialize(into: $0) } }
    }

    private func hello(_ packet: SpeedTestPacket, from source: SocketAddress, now: UInt64, send: Send) {
        // Short hellos are ignored so no answer is ever longer than what provoked it.
        guard packet.size >= SpeedTestPacket.minimumHelloSize, case .hello(let token) = packet.body,
              allowHello(from: source, now: now) else { return }
        let tokenKey: String
        switch Self.authorize(token, now: wallClock(), keyForIssuer: keyForIssuer) {
        case .accepted(let key): tokenKey = key
        case .refused(let code): return reject(code, to: source, send: send)
        case .unknown: return  // not signed by a known app: an unknown sender gets nothing
        }
        if let existing = sessions.values.first(where: { $0.tokenKey == tokenKey && !$0.isExpired(now: now) }) {
            // A repeated hello (the welcome was lost) gets the same session; another address none.
            guard existing.address == source else { return reject(.wrongState, to: source, send: send) }
            return welcome(existing, send: send)
        }
        sweep(now: now, force: true)
        guard sessions.count < settings.maxSessions else { return reject(.limitReached, to: source, send: send) }
        var id: UInt64 = 0
        repeat { id = SecureRandom.uint64() } while id == 0 || sessions[id] != nil
        let session = SpeedTestSession(id: id, address: source, tokenKey: tokenKey, limits: settings.limits, now: now)
        sessions[id] = session
        welcome(session, send: send)
    }

    /// What a hello's token allows.
    enum Authorization: Equatable {
        /// A speed-test or channel token: the session key (`iss/jti`, one live session per token).
        case accepted(String)
        /// Signed by a known app but unusable now: answered with this code.
        case refused(APIErrorCode)
        /// Not signed by a known app: not answered.
        case unknown
    }

    /// Checks a hello's token (UDP and WebSocket carriers).
    static func authorize(_ token: String, now: Int64, keyForIssuer: (String) -> String?) -> Authorization {
        let claims: TokenClaims
        do {
            claims = try AccessToken.verify(token, now: now, keyForIssuer: keyForIssuer)
        } catch .expired {
            return .refused(.tokenExpired)
        } catch .notYetValid {
            return .refused(.tokenNotYetValid)
        } catch {
            return .unknown
        }
        guard claims.speedTest != nil || claims.grant != nil else { return .refused(.permissionDenied) }
        return .accepted(claims.iss + "/" + claims.jti)
    }

    private func welcome(_ session: SpeedTestSession, send: Send) {
        let packet = SpeedTestPacket(kind: .welcome, session: session.id, body: .welcome(session.limits))
        _ = send(session.address) { packet.serialize(into: $0) }
    }

    private func reject(_ code: APIErrorCode, to address: SocketAddress, send: Send) {
        let packet = SpeedTestPacket(kind: .reject, body: .reject(code: UInt32(code.rawValue)))
        _ = send(address) { packet.serialize(into: $0) }
    }

    /// The per-address fixed window: `hellosPerAddressPer10s` per 10 s.
    private func allowHello(from source: SocketAddress, now: UInt64) -> Bool {
        let key = AddressKey(source)
        var entry = hellos[key] ?? (now, 0)
        if now >= entry.windowStart + 10_000_000 { entry = (now, 0) }
        guard entry.count < settings.hellosPerAddressPer10s else { return false }
        guard hellos[key] != nil || hellos.count < Self.maxTrackedAddresses else { return false }
        entry.count += 1
        hellos[key] = entry
        return true
    }

    // MARK: - Timer

    /// Sends the downlink load due by `now` and drops expired sessions.
    func tick(now: UInt64, send: Send) {
        for id in sessions.keys {
            guard var session = sessions[id], session.downlink != nil else { continue }
            let (address, sessionID) = (session.address, session.id)
            session.downlinkDue(now: now) { sequence, size in
                let packet = SpeedTestPacket(kind: .downlinkData, session: sessionID, sequence: sequence, timestampMicros: now, size: size)
                _ = send(address) { packet.serialize(into: $0) }
            }
            sessions[id] = session
        }
        sweep(now: now, force: false)
    }

    /// Once a second (or when asked), forgets expired sessions and old hello windows.
    private func sweep(now: UInt64, force: Bool) {
        guard force || now >= lastSweepMicros + 1_000_000 else { return }
        lastSweepMicros = now
        sessions = sessions.filter { !$0.value.isExpired(now: now) }
        if !hellos.isEmpty { hellos = hellos.filter { now < $0.value.windowStart + 10_000_000 } }
    }
}
