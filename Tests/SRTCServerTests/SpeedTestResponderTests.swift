import Foundation
import Testing
import RTCNet
import RTCWire
import SRTCProtocol
@testable import SRTCServer

/// The speed-test responder without a socket: what it answers, to whom, and how much.
@Suite struct SpeedTestResponderTests {
    static let appId = "app1", appKey = "key1"
    static let client = SocketAddress(ip: "192.0.2.10", port: 5000)!
    static let other = SocketAddress(ip: "192.0.2.99", port: 5000)!

    /// Records what the responder sends.
    final class Wire {
        var sent: [(to: SocketAddress, packet: SpeedTestPacket)] = []
        func send(_ to: SocketAddress, _ write: (UnsafeMutableRawBufferPointer) -> Int?) -> Bool {
            var slot = [UInt8](repeating: 0, count: 2048)
            let length = slot.withUnsafeMutableBytes { write($0) } ?? 0
            sent.append((to, try! SpeedTestPacket(bytes: Array(slot.prefix(length)))))
            return true
        }
    }

    static func responder(_ configure: (inout SpeedTestSettings) -> Void = { _ in }) -> SpeedTestResponder {
        var settings = SpeedTestSettings()
        configure(&settings)
        return SpeedTestResponder(settings: settings, keyForIssuer: { $0 == appId ? appKey : nil })
    }

    static func token(key: String = appKey, lifetime: Int64 = 300, speedTest: Bool = true, member: Bool = false, jti: String = UUID().uuidString,
                      sub: String = "alice") -> String {
        let now = Int64(Date().timeIntervalSince1970)
        return AccessToken.sign(TokenClaims(iss: appId, sub: sub, iat: now - 600, nbf: now - 600, exp: now + lifetime, jti: jti,
                                            member: member ? MemberGrant() : nil, speedTest: speedTest ? SpeedTestGrant() : nil), key: key)
    }

    static func hello(_ token: String, size: Int = SpeedTestPacket.minimumHelloSize) -> [UInt8] {
        SpeedTestPacket(kind: .hello, body: .hello(token: token), size: size).bytes
    }

    /// Opens a session; returns its id.
    static func open(_ responder: SpeedTestResponder, _ wire: Wire, now: UInt64 = 0) throws -> UInt64 {
        receive(responder, wire, hello(token()), now: now)
        guard case .welcome = try #require(wire.sent.last).packet.body else { Issue.record("no welcome"); return 0 }
        return wire.sent.last!.packet.session
    }

    static func receive(_ responder: SpeedTestResponder, _ wire: Wire, _ bytes: [UInt8], from: SocketAddress = client, now: UInt64) {
        bytes.withUnsafeBytes { responder.receive($0, from: from, now: now, send: wire.send) }
    }

    @Test func aValidHelloGetsAShorterWelcomeWithTheLimits() throws {
        let responder = Self.responder { $0.maxBitrate = 5_000_000; $0.maxDurationSeconds = 12 }
        let wire = Wire()
        _ = try Self.open(responder, wire)
        #expect(wire.sent.count == 1 && wire.sent[0].to == Self.client)
        #expect(wire.sent[0].packet.body == .welcome(SpeedTestLimits(maxUplinkBitrate: 5_000_000, maxDownlinkBitrate: 5_000_000, maxDurationMs: 12_000)))
        #expect(wire.sent[0].packet.size < SpeedTestPacket.minimumHelloSize)
    }

    @Test func unknownSendersGetNothing() {
        let responder = Self.responder()
        let wire = Wire()
        Self.receive(responder, wire, Self.hello(Self.token(key: "wrong")), now: 0)         // bad signature
        Self.receive(responder, wire, Self.hello("not.a.token"), now: 0)                     // malformed
        let short = Self.token(jti: "j", sub: "a")                                         // valid, but its hello is short
        #expect(Self.hello(short, size: 0).count < SpeedTestPacket.minimumHelloSize)
        Self.receive(responder, wire, Self.hello(short, size: 0), now: 0)
        Self.receive(responder, wire, SpeedTestPacket(kind: .ping, session: 1, size: 64).bytes, now: 0)  // no session
        Self.receive(responder, wire, SpeedTestPacket(kind: .downlinkStart, session: 1,
                                                      body: .downlinkStart(bitrate: 1_000_000, durationMs: 1000, packetSize: 1200)).bytes, now: 0)
        Self.receive(responder, wire, [0x0c, 1, 2, 3], now: 0)                               // garbage
        responder.tick(now: 2_000_000, send: wire.send)
        #expect(wire.sent.isEmpty)
        #expect(responder.sessionCount == 0)
    }

    @Test func authenticatedButUnusableTokensAreRejectedWithTheirCode() {
        let responder = Self.responder()
        let wire = Wire()
        Self.receive(responder, wire, Self.hello(Self.token(lifetime: -60)), now: 0)
        Self.receive(responder, wire, Self.hello(Self.token(speedTest: false, member: true)), now: 0)
        #expect(wire.sent.map(\.packet.body) == [.reject(code: 40107), .reject(code: 40301)])
        #expect(wire.sent.allSatisfy { $0.packet.size < SpeedTestPacket.minimumHelloSize })
    }

    @Test func anotherAddressCannotUseASession() throws {
        let responder = Self.responder()
        let wire = Wire()
        let session = try Self.open(responder, wire)
        Self.receive(responder, wire, SpeedTestPacket(kind: .ping, session: session, size: 64).bytes, from: Self.other, now: 1000)
        Self.receive(responder, wire, SpeedTestPacket(kind: .downlinkStart, session: session,
                                                      body: .downlinkStart(bitrate: 1_000_000, durationMs: 1000, packetSize: 1200)).bytes,
                     from: Self.other, now: 1000)
        responder.tick(now: 500_000, send: wire.send)
        #expect(wire.sent.count == 1)  // the welcome only
    }

    @Test func theSameTokenFromTheSameAddressGetsTheSameSessionAndFromAnotherAWrongState() throws {
        let responder = Self.responder()
        let wire = Wire()
        let token = Self.token(jti: "same")
        Self.receive(responder, wire, Self.hello(token), now: 0)
        Self.receive(responder, wire, Self.hello(token), now: 1000)
        Self.receive(responder, wire, Self.hello(token), from: Self.other, now: 2000)
        #expect(wire.sent.count == 3)
        #expect(wire.sent[0].packet.session == wire.sent[1].packet.session)
        #expect(wire.sent[2].packet.body == .reject(code: 40901) && wire.sent[2].to == Self.other)
        #expect(responder.sessionCount == 1)
    }

    @Test func helloFloodsFromOneAddressAreDroppedAndSessionsAreCapped() {
        let responder = Self.responder { $0.hellosPerAddressPer10s = 3; $0.maxSessions = 2 }
        let wire = Wire()
        for i in 0..<10 { Self.receive(responder, wire, Self.hello(Self.token()), now: UInt64(i) * 1000) }
        // 3 hellos pass the address limit: 2 sessions, then limit_reached.
        #expect(wire.sent.map(\.packet.kind) == [.welcome, .welcome, .reject])
        #expect(wire.sent[2].packet.body == .reject(code: 42901))
        // The next window admits the address again.
        Self.receive(responder, wire, Self.hello(Self.token()), now: 11_000_000)
        #expect(wire.sent.count == 4)
    }

    @Test func pingsGetSameSizePongsAndTheReportCountsThem() throws {
        let responder = Self.responder()
        let wire = Wire()
        let session = try Self.open(responder, wire)
        for i in 0..<5 {
            Self.receive(responder, wire, SpeedTestPacket(kind: .ping, session: session, sequence: UInt32(i), timestampMicros: UInt64(i) * 10_000,
                                                          size: 64).bytes, now: 1_000_000 + UInt64(i) * 10_000)
        }
        Self.receive(responder, wire, SpeedTestPacket(kind: .ping, session: session, timestampMicros: 100_000, size: 30).bytes,
                     now: 1_100_000)  // too short for a pong
        for i in 0..<3 {
            Self.receive(responder, wire, SpeedTestPacket(kind: .data, session: session, sequence: UInt32(i), size: 1000).bytes,
                         now: 2_000_000 + UInt64(i) * 100_000)
        }
        Self.receive(responder, wire, SpeedTestPacket(kind: .reportRequest, session: session, size: 64).bytes, now: 3_000_000)
        let pongs = wire.sent.filter { $0.packet.kind == .pong }
        #expect(pongs.count == 5)
        #expect(pongs.allSatisfy { $0.packet.size == 64 })
        #expect(pongs.last?.packet.body == .pong(echoedTimestamp: 40_000, pingsReceived: 5))
        let report = try #require(wire.sent.last)
        #expect(report.packet.size == 64)
        #expect(report.packet.body == .report(SpeedTestReport(pingsReceived: 6, pingJitterMicros: 0, dataPackets: 3, dataBytes: 3000,
                                                              firstDataMicros: 2_000_000, lastDataMicros: 2_200_000)))
    }

    @Test func downlinkIsPacedAtTheRequestedRateCappedByTheLimitAndEndsOnTime() throws {
        let responder = Self.responder { $0.maxBitrate = 2_000_000 }
        let wire = Wire()
        let session = try Self.open(responder, wire)
        // Asks for 8 Mbps for 1 s in 1000-byte datagrams: capped at 2 Mbps = 250 datagrams.
        Self.receive(responder, wire, SpeedTestPacket(kind: .downlinkStart, session: session,
                                                      body: .downlinkStart(bitrate: 8_000_000, durationMs: 1000, packetSize: 1000)).bytes, now: 1_000_000)
        var now: UInt64 = 1_000_000
        while now <= 2_500_000 {
            responder.tick(now: now, send: wire.send)
            now += 10_000
        }
        let data = wire.sent.filter { $0.packet.kind == .downlinkData }
        #expect(data.count == 251)  // t = 0, 4 ms, … 1000 ms inclusive
        #expect(data.allSatisfy { $0.packet.size == 1000 && $0.to == Self.client })
        #expect(data.map(\.packet.sequence) == (0..<251).map { UInt32($0) })
    }

    @Test func byeAndSilenceEndSessions() throws {
        let responder = Self.responder()
        let wire = Wire()
        let a = try Self.open(responder, wire)
        _ = try Self.open(responder, wire)
        Self.receive(responder, wire, SpeedTestPacket(kind: .bye, session: a).bytes, now: 10)
        #expect(responder.sessionCount == 1)
        responder.tick(now: SpeedTestSession.idleMicros + 1_000_000, send: wire.send)
        #expect(responder.sessionCount == 0)
    }
}

