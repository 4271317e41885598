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

    /// A client allocated and bound to `peer` (channel 0x4000), and the key its requests are signed with.
    static func allocated(relayed: SocketAddress) throws -> (TURNClient, [UInt8]) {
        var client = TURNClient(server: server)
        let first = try sent(client.start(now: .now))
        _ = client.bind(peer: peer, now: .now)
        let signed = try sent(deliver(answer(first, .errorResponse, [.errorCode(401, reason: "Unauthorized"),
                                                                    .text(STUNAttribute.realm, "srtc.test"), .text(STUNAttribute.nonce, "n0nce")], key: nil), to: &client))
        let key = STUNMessage.longTermKey(username: server.username, realm: "srtc.test", password: "secret")
        let bind = try sent(Array(deliver(success(signed, relayed: relayed, key: key), to: &client).dropFirst()))
        _ = try deliver(answer(bind, .successResponse, [], key: key), to: &client)
        return (client, key)
    }

    static func success(_ allocate: STUNMessage, relayed: SocketAddress, key: [UInt8]) -> [UInt8] {
        answer(allocate, .successResponse, [STUNAttribute(type: STUNAttribute.xorRelayedAddress,
            value: STUNAttribute.xorMappedAddress(relayed.stunAddress, transactionID: allocate.transactionID).value), .lifetime(seconds: 600)], key: key)
    }

    /// After an ICE restart (the device may have a new address) the allocation is checked with a
    /// Refresh: 437 from the new 5-tuple means a new allocation, whose channels are bound again.
    @Test func aRestartRefreshesTheAllocationAndAllocatesAgainFromANewAddress() throws {
        let first = SocketAddress(ip: "192.0.2.1", port: 49_160)!
        var (client, key) = try Self.allocated(relayed: first)
        #expect(client.channel(for: Self.peer) == 0x4000)

        // Same address: the Refresh is answered, the allocation and its channel stay.
        var same = client
        let refresh = try Self.sent(same.revalidate(now: .now))
        #expect(refresh.type.method == STUNMessageType.refreshMethod && refresh.username == Self.server.username)
        #expect(try Self.deliver(Self.answer(refresh, .successResponse, [.lifetime(seconds: 600)], key: key), to: &same).isEmpty)
        #expect(same.state == .allocated && same.channel(for: Self.peer) == 0x4000 && same.relayedAddress == first)

        // A new address: 437, so a signed Allocate goes out and the old channel is gone.
        let check = try Self.sent(client.revalidate(now: .now))
        let mismatch = Self.answer(check, .errorResponse, [.errorCode(437, reason: "Allocation Mismatch")], key: nil)
        let allocate = try Self.sent(Self.deliver(mismatch, to: &client))
        #expect(allocate.type.method == STUNMessageType.allocateMethod && allocate.text(STUNAttribute.nonce) == "n0nce")
        #expect(client.state == .allocating && client.channel(for: Self.peer) == nil && client.relayedAddress == nil)
        let second = SocketAddress(ip: "192.0.2.1", port: 49_777)!
        #expect(try Self.deliver(Self.success(allocate, relayed: second, key: key), to: &client) == [.allocated(second)])
        // The peer's channel is asked for again on demand.
        let bind = try Self.sent(client.bind(peer: Self.peer, now: .now))
        #expect(try Self.deliver(Self.answer(bind, .successResponse, [], key: key), to: &client) == [.channelBound(peer: Self.peer, channel: 0x4000)])

        // A client that had failed starts over.
        var failed = TURNClient(server: Self.server)
        var now = ContinuousClock.now
        _ = failed.start(now: now)
        while failed.state != .failed { now += .seconds(1); _ = failed.tick(now: now) }
        let again = try Self.sent(failed.revalidate(now: now))
        #expect(again.type.method == STUNMessageType.allocateMethod && failed.state == .allocating)
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
