import Foundation
import Testing
import RTCNet
import RTCWire
@testable import RTCTransport
import TestRandom

/// The TURN client machine (RFC 8656) against scripted server answers; the real coturn is in
/// EndToEndTests/TURNRelayTests.
@Suite struct TURNClientTests {
    static let server = TURNServer(address: SocketAddress(ip: "192.0.2.1", port: 3478)!, username: "1700000000:alice", password: "secret")
    static let peer = SocketAddress(ip: "192.0.2.9", port: 7881)!

    static func sent(_ actions: [TURNClient.Action]) throws -> STUNMessage {
        guard case .send(let bytes)? = actions.first(where: { if case .send = $0 { true } else { false } }) else {
            throw CheckFailure("no request in \(actions)")
        }
        return try STUNMessage(bytes: bytes)
    }

    struct CheckFailure: Error { let text: String; init(_ text: String) { self.text = text } }

    static func answer(_ request: STUNMessage, _ cls: STUNMessageType.Class, _ attributes: [STUNAttribute], key: [UInt8]?) -> [UInt8] {
        STUNMessage(type: STUNMessageType(method: request.type.method, class: cls), transactionID: request.transactionID,
                    attributes: attributes).encoded(integrityKey: key, fingerprint: true)
    }

    static func deliver(_ bytes: [UInt8], to client: inout TURNClient) throws -> [TURNClient.Action] {
        let message = try STUNMessage(bytes: bytes)
        #expect(client.isResponse(message))
        return bytes.withUnsafeBytes { client.handle(message, raw: $0, now: .now) }
    }

    @Test func allocatesWithLongTermCredentialsThenBindsAChannel() throws {
        var client = TURNClient(server: Self.server)
        let first = try Self.sent(client.start(now: .now))
        #expect(first.type.method == STUNMessageType.allocateMethod && first.attribute(STUNAttribute.messageIntegrity) == nil)
        // A channel asked for before the allocation waits for it.
        #expect(client.bind(peer: Self.peer, now: .now).isEmpty)

        // 401 with REALM and NONCE: the retry is signed with MD5(username:realm:password).
        let challenge = Self.answer(first, .errorResponse, [.errorCode(401, reason: "Unauthorized"),
                                                            .text(STUNAttribute.realm, "srtc.test"), .text(STUNAttribute.nonce, "n0nce")], key: nil)
        let signed = try Self.sent(Self.deliver(challenge, to: &client))
        let key = STUNMessage.longTermKey(username: Self.server.username, realm: "srtc.test", password: "secret")
        // MD5("1700000000:alice:srtc.test:secret"), from `printf … | md5sum`.
        #expect(key.map { String(format: "%02x", $0) }.joined() == "5959959675b35fbd48b51cb308089cb6")
        #expect(signed.username == Self.server.username && signed.text(STUNAttribute.nonce) == "n0nce")
        let raw = signed.encoded(integrityKey: key, fingerprint: true)
        #expect(throws: Never.self) { try signed.verifyIntegrity(in: raw, key: key) }

        // Success: the relayed address, then the waiting ChannelBind goes out.
        let relayed = SocketAddress(ip: "192.0.2.1", port: 49_160)!
        let success = Self.answer(signed, .successResponse, [STUNAttribute(type: STUNAttribute.xorRelayedAddress,
            value: STUNAttribute.xorMappedAddress(relayed.stunAddress, transactionID: signed.transactionID).value), .lifetime(seconds: 600)], key: key)
        let afterAllocate = try Self.deliver(success, to: &client)
        #expect(afterAllocate.first == .allocated(relayed))
        #expect(client.relayedAddress == relayed)
        let bind = try Self.sent(Array(afterAllocate.dropFirst()))
        #expect(bind.type.method == STUNMessageType.channelBindMethod)
        #expect(try bind.xorAddress(STUNAttribute.xorPeerAddress)?.socketAddress == Self.peer)
        #expect(client.channel(for: Self.peer) == nil)
        let bound = try Self.deliver(Self.answer(bind, .successResponse, [], key: key), to: &client)
        #expect(bound == [.channelBound(peer: Self.peer, channel: 0x4000)])
        #expect(client.channel(for: Self.peer) == 0x4000 && client.peer(for: 0x4000) == Self.peer)
        // A refused Refresh ends the allocation.
        var other = client
        let refresh = try Self.sent(other.tick(now: .now + .seconds(400)))
        #expect(try Self.deliver(Self.answer(refresh, .errorResponse, [.errorCode(403, reason: "Forbidden")], key: key), to: &other)
            == [.failed("TURN Refresh refused: 403 Forbidden")])
    }

    @Test func anUnansweredAllocateFailsAfterItsRetransmissions() throws {
        var client = TURNClient(server: Self.server)
        var now = ContinuousClock.now
        var sends = client.start(now: now).count
        var failed = false
        for _ in 0..<200 where !failed {
            now += .milliseconds(250)
            for action in client.tick(now: now) {
                if case .send = action { sends += 1 }
                if case .failed = action { failed = true }
            }
        }
        #expect(failed && sends == client.maxTransmissions && client.state == .failed)
    }

    @Test func channelDataParsesOnlyWellFormedMessages() {
        var random = SeededRandom(seed: 8656)
        for _ in 0..<5_000 {
            let bytes = (0..<Int.random(in: 0...40, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            bytes.withUnsafeBytes { raw in
                guard let parsed = TURNChannelData.parse(raw) else { return }
                #expect(TURNChannelData.channelRange.contains(parsed.channel) && parsed.payload.upperBound <= raw.count)
            }
        }
        let message: [UInt8] = [0x40, 0x01, 0x00, 0x03, 9, 8, 7]  // channel 0x4001, length 3
        message.withUnsafeBytes { raw in
            let parsed = TURNChannelData.parse(raw)
            #expect(parsed?.channel == 0x4001 && parsed?.payload == 4..<7)
        }
        let tooLong: [UInt8] = [0x40, 0x01, 0x00, 0x04, 9, 8, 7]  // length past the end
        tooLong.withUnsafeBytes { #expect(TURNChannelData.parse($0) == nil) }
        let outOfRange: [UInt8] = [0x50, 0x00, 0x00, 0x00]  // channel out of range
        outOfRange.withUnsafeBytes { #expect(TURNChannelData.parse($0) == nil) }
    }
}
