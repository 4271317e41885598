import RTCCrypto
@testable import SMeeting
import SMeetingProtocol
import SRTC
import TestRandom
import Testing

/// The key exchange of E2EE meetings (docs/e2ee.md, "E2EE meetings") without a server: the
/// message and grant formats with their named errors, sealing and opening, and what a member's
/// client accepts.
struct MeetingKeyExchangeTests {
    static let pub = [UInt8](0..<32)

    // MARK: - Formats

    @Test func messagesWriteAndParse() throws {
        // version 1 | type 1 (announce) | 32-byte key
        let announce = MeetingKeyMessage.announce(publicKey: Self.pub)
        #expect(announce.bytes == [1, 1] + Self.pub)
        #expect(try MeetingKeyMessage(parsing: announce.bytes) == announce)
        // version 1 | type 2 | epoch 7 | sender key | nonce (12) | ciphertext and tag (16)
        let sealed = MeetingKeyMessage.sealedKey(.init(epoch: 7, senderPublicKey: Self.pub, nonce: [UInt8](repeating: 5, count: 12),
                                                       ciphertext: [UInt8](repeating: 9, count: 16)))
        #expect(sealed.bytes == [1, 2, 7] + Self.pub + [UInt8](repeating: 5, count: 12) + [UInt8](repeating: 9, count: 16))
        #expect(try MeetingKeyMessage(parsing: sealed.bytes) == sealed)
    }

    static let badMessages: [([UInt8], MeetingKeyMessageError)] = [
        ([], .truncated),
        ([1], .truncated),
        ([2, 1] + pub, .unsupportedVersion(2)),
        ([1, 3] + pub, .unknownType(3)),
        ([1, 1] + pub.dropLast(), .truncated),
        ([1, 1] + pub + [0], .trailingBytes),
        ([1, 2, 0] + pub + [UInt8](repeating: 0, count: 12 + 15), .truncated),
    ]

    @Test(arguments: badMessages)
    func malformedMessagesGetTheirNamedError(bytes: [UInt8], error: MeetingKeyMessageError) {
        #expect(throws: error) { try MeetingKeyMessage(parsing: bytes) }
    }

    @Test func grantsSortTheirRosterAndParseBack() throws {
        let grant = MeetingKeyGrant(meetingKey: [UInt8](repeating: 0x42, count: 32),
                                    roster: [.init(uid: "bob", publicKey: Self.pub), .init(uid: "alice", publicKey: Self.pub)])
        #expect(grant.roster.map(\.uid) == ["alice", "bob"])
        // key | count 00 02 | 05 "alice" key | 03 "bob" key
        #expect(grant.bytes == [UInt8](repeating: 0x42, count: 32) + [0, 2, 5] + Array("alice".utf8) + Self.pub + [3] + Array("bob".utf8) + Self.pub)
        #expect(try MeetingKeyGrant(parsing: grant.bytes) == grant)
    }

    static let key = [UInt8](repeating: 0x42, count: 32)
    static let badGrants: [([UInt8], MeetingKeyMessageError)] = [
        (key, .truncated),
        (key + [0, 1], .truncated),
        (key + [0, 1, 0] + pub, .emptyUid),
        (key + [0, 1, 2, 0xff, 0xfe] + pub, .invalidUid),
        (key + [0, 1, 3] + Array("bob".utf8) + pub.dropLast(), .truncated),
        (key + [0, 2, 3] + Array("bob".utf8) + pub + [5] + Array("alice".utf8) + pub, .rosterNotSorted),
        (key + [0, 2, 3] + Array("bob".utf8) + pub + [3] + Array("bob".utf8) + pub, .rosterNotSorted),
        (key + [0, 0, 9], .trailingBytes),
    ]

    @Test(arguments: badGrants)
    func malformedGrantsGetTheirNamedError(bytes: [UInt8], error: MeetingKeyMessageError) {
        #expect(throws: error) { try MeetingKeyGrant(parsing: bytes) }
    }

    @Test func tenThousandSeededRandomInputsNeverCrashAndReencode() {
        var random = SeededRandom(seed: 0x4D4B_4559)
        for _ in 0..<10_000 {
            var bytes = random.bytes(Int.random(in: 0...120, using: &random))
            if !bytes.isEmpty, Bool.random(using: &random) { bytes[0] = 1 }
            if bytes.count > 1 { bytes[1] &= 0x03 }
            if let message = try? MeetingKeyMessage(parsing: bytes) { #expect(message.bytes == bytes) }
            if bytes.count > 34 { bytes[32] = 0; bytes[33] &= 0x03 }
            if let grant = try? MeetingKeyGrant(parsing: bytes) { #expect(grant.bytes == bytes) }
        }
    }

    // MARK: - Sealing and what members accept

    /// The host's client rotates; each member opens its sealed key and holds the same code.
    @Test func membersOpenTheHostsKeyAndShareTheCode() throws {
        let host = MeetingE2EE(), bob = MeetingE2EE(), carol = MeetingE2EE()
        _ = try host.receive(bob.announcement, from: "bob", myUid: "host", hostUid: "host")
        _ = try host.receive(carol.announcement, from: "carol", myUid: "host", hostUid: "host")
        let (messages, status) = try #require(host.rotate(myUid: "host", members: ["bob", "carol", "dave"]))
        #expect(status.epoch == 0 && status.members == ["bob", "carol", "host"])  // dave announced nothing
        #expect(messages.map(\.uid).sorted() == ["bob", "carol"])
        let bobsMessage = try #require(messages.first { $0.uid == "bob" }).bytes
        let carolsMessage = try #require(messages.first { $0.uid == "carol" }).bytes
        #expect(try bob.receive(bobsMessage, from: "host", myUid: "bob", hostUid: "host") == .keyChanged(status))
        #expect(try carol.receive(carolsMessage, from: "host", myUid: "carol", hostUid: "host") == .keyChanged(status))
        #expect(status.verificationCode.count == 14)
        print("verification code at epoch 0: \(status.verificationCode)")

        // Another member's sealed key does not open; a replay is stale; only the host may seal.
        #expect(throws: MeetingE2EEError.authenticationFailed) { try bob.receive(carolsMessage, from: "host", myUid: "bob", hostUid: "host") }
        #expect(throws: MeetingE2EEError.staleEpoch(0)) { try bob.receive(bobsMessage, from: "host", myUid: "bob", hostUid: "host") }
        #expect(throws: MeetingE2EEError.notFromHost("carol")) { try bob.receive(bobsMessage, from: "carol", myUid: "bob", hostUid: "host") }
        // A server that names another sender (and calls it the host) changes the authenticated data.
        #expect(throws: MeetingE2EEError.authenticationFailed) { try bob.receive(bobsMessage, from: "mallory", myUid: "bob", hostUid: "mallory") }

        // carol leaves: the next epoch goes to bob alone, with another code.
        host.forget(uid: "carol")
        let (again, next) = try #require(host.rotate(myUid: "host", members: ["bob"]))
        #expect(next.epoch == 1 && next.members == ["bob", "host"] && next.verificationCode != status.verificationCode)
        #expect(try bob.receive(again[0].bytes, from: "host", myUid: "bob", hostUid: "host") == .keyChanged(next))
    }

    @Test func aChangedByteOrAnotherRecipientFails() throws {
        let host = MeetingE2EE(), bob = MeetingE2EE()
        _ = try host.receive(bob.announcement, from: "bob", myUid: "host", hostUid: "host")
        let message = try #require(host.rotate(myUid: "host", members: ["bob"])?.messages.first).bytes
        for index in [2, 3, 40, message.count - 1] {
            var changed = message
            changed[index] ^= 1
            #expect(throws: (any Error).self) { try bob.receive(changed, from: "host", myUid: "bob", hostUid: "host") }
        }
        // Sealed to bob, read as if it were for "bob2": the recipient is authenticated.
        #expect(throws: MeetingE2EEError.authenticationFailed) { try bob.receive(message, from: "host", myUid: "bob2", hostUid: "host") }
        let status = try #require(host.status)
        #expect(try bob.receive(message, from: "host", myUid: "bob", hostUid: "host") == .keyChanged(status))
    }

    /// A host that seals a roster without me (or with another key for me) is refused: a server
    /// that swapped my public key cannot also make my roster name my real one.
    /// The host's client rotates only when the roster changes: not for a member without a known
    /// key leaving, nor for a member announcing the key it already holds.
    @Test func aRotationThatChangesNoRosterIsSkipped() throws {
        let host = MeetingE2EE(), bob = MeetingE2EE()
        #expect(host.rotationChangesRoster(myUid: "host", members: []), "before the first key")
        #expect(try host.receive(bob.announcement, from: "bob", myUid: "host", hostUid: "host") == .announced("bob", isNew: true))
        _ = try #require(host.rotate(myUid: "host", members: ["bob", "dave"]))
        #expect(!host.rotationChangesRoster(myUid: "host", members: ["bob"]), "dave, who announced nothing, left")
        // A repeated announcement is not new: the host's client does not rotate for it (so it
        // does not carry out a pending leave before the leave's settle time).
        #expect(try host.receive(bob.announcement, from: "bob", myUid: "host", hostUid: "host") == .announced("bob", isNew: false))
        #expect(!host.rotationChangesRoster(myUid: "host", members: ["bob"]), "bob announced the key he holds")
        #expect(try host.receive(MeetingE2EE().announcement, from: "bob", myUid: "host", hostUid: "host") == .announced("bob", isNew: true))
        #expect(host.rotationChangesRoster(myUid: "host", members: ["bob"]), "bob came back with another key")
        _ = try #require(host.rotate(myUid: "host", members: ["bob"]))
        host.forget(uid: "bob")
        #expect(host.rotationChangesRoster(myUid: "host", members: []), "bob left")
    }

    @Test func aRosterWithoutMyOwnKeyIsRefused() throws {
        let bob = MeetingE2EE(), impostor = X25519KeyPair(), host = X25519KeyPair()
        let grant = MeetingKeyGrant(meetingKey: Self.key, roster: [.init(uid: "bob", publicKey: impostor.publicKey), .init(uid: "host", publicKey: host.publicKey)])
        let sealed = try MeetingKeySeal.seal(grant, epoch: 0, from: "host", keyPair: host, to: "bob", publicKey: bob.keyPair.publicKey)
        #expect(throws: MeetingE2EEError.rosterMismatch) {
            try bob.receive(MeetingKeyMessage.sealedKey(sealed).bytes, from: "host", myUid: "bob", hostUid: "host")
        }
        #expect(throws: MeetingE2EEError.badPublicKey) {
            try MeetingKeySeal.seal(grant, epoch: 0, from: "host", keyPair: host, to: "bob", publicKey: [UInt8](repeating: 0, count: 32))
        }
    }

    /// What the web SDK's WebCrypto code (web/smeeting/e2ee-meeting.js) sealed as host "alice"
    /// (RFC 7748's Alice key) to "bob" (RFC 7748's Bob key) at epoch 0, with the code it showed.
    static let webSealed = "0102008520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6abdd22f6da849167e87d41c89205ae55d5b2891de"
        + "736dab58656a4a107279f5835a4b0b673b1f94aaacc7f19882dcc5991e4e0a69c4bb3cfd1548ecab80eb3d8b02da548f0416424d29f0488fb1c816460c285"
        + "c57c28df1e107490796646cdf6e766a0a9de460963cce4c23bbef3666173aa7fb9a9b627b039d8eb028f02a0d4baace378c1137c0f7"

    @Test func aKeySealedByTheWebSDKOpensWithTheSameCode() throws {
        let bob = MeetingE2EE(keyPair: try X25519KeyPair(privateKey: Encoding.fromHex("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb")!))
        let received = try bob.receive(Encoding.fromHex(Self.webSealed)!, from: "alice", myUid: "bob", hostUid: "alice")
        #expect(received == .keyChanged(SMeetingE2EEStatus(epoch: 0, verificationCode: "0595 1628 3017", members: ["alice", "bob"])))
    }

    @Test func theCodeIsThreeGroupsOfFourDigitsAndCoversTheRoster() {
        let a = MeetingKeyGrant(meetingKey: Self.key, roster: [.init(uid: "a", publicKey: Self.pub)])
        let b = MeetingKeyGrant(meetingKey: Self.key, roster: [.init(uid: "a", publicKey: [UInt8](repeating: 1, count: 32))])
        let code = MeetingKeySeal.verificationCode(a, epoch: 0)
        #expect(code.split(separator: " ").map(\.count) == [4, 4, 4] && code.allSatisfy { $0 == " " || $0.isNumber })
        #expect(code != MeetingKeySeal.verificationCode(b, epoch: 0))
        #expect(code != MeetingKeySeal.verificationCode(a, epoch: 1))
    }
}
