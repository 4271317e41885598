import Testing
import RTCWire
import TestRandom

/// SRTC user data packets (docs/protocol.md, "Data messages"): annotated fixtures of both kinds,
/// the limits, and hostile input.
@Suite struct DataPacketTests {
    /// A publish packet for bob and carol with topic "t" and payload "hi".
    static let publish: [UInt8] = [
        0x01,                   // kind 1: published by a client
        0x02,                   // two recipients
        0x03, 0x62, 0x6F, 0x62, // "bob"
        0x05, 0x63, 0x61, 0x72, 0x6F, 0x6C, // "carol"
        0x01, 0x74,             // topic "t"
        0x68, 0x69,             // payload "hi"
    ]

    /// The same payload delivered from alice.
    static let delivery: [UInt8] = [
        0x02,                   // kind 2: delivered by the server
        0x05, 0x61, 0x6C, 0x69, 0x63, 0x65, // sender "alice"
        0x01, 0x74,             // topic "t"
        0x68, 0x69,             // payload "hi"
    ]

    /// The publish packet relayed between nodes, from alice.
    static let relayed: [UInt8] = [
        0x03,                   // kind 3: relayed between nodes
        0x05, 0x61, 0x6C, 0x69, 0x63, 0x65, // sender "alice"
        0x02,                   // two recipients
        0x03, 0x62, 0x6F, 0x62, // "bob"
        0x05, 0x63, 0x61, 0x72, 0x6F, 0x6C, // "carol"
        0x01, 0x74,             // topic "t"
        0x68, 0x69,             // payload "hi"
    ]

    static func parseRelayed(_ bytes: [UInt8]) throws(DataPacketError) -> (sender: [UInt8], recipients: [[UInt8]], topic: [UInt8], payload: [UInt8]) {
        var ranges: [Range<Int>] = []
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(DataPacketError) in try DataPacket.Relayed(parsing: raw, recipients: &ranges) }
        }
        let packet = try result.get()
        return (Array(bytes[packet.sender]), ranges.map { Array(bytes[$0]) }, Array(bytes[packet.published.topic]),
                Array(bytes[packet.published.payload]))
    }

    static func writeRelay(sender: String, published: [UInt8]) throws(DataPacketError) -> [UInt8] {
        var out: [UInt8] = []
        let result = published.withUnsafeBytes { raw in
            Result { () throws(DataPacketError) in try DataPacket.writeRelay(sender: sender.utf8, published: raw, into: &out) }
        }
        try result.get()
        return out
    }

    static func parsePublish(_ bytes: [UInt8]) throws(DataPacketError) -> (recipients: [[UInt8]], topic: [UInt8], payload: [UInt8]) {
        var ranges: [Range<Int>] = []
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(DataPacketError) in try DataPacket.Publish(parsing: raw, recipients: &ranges) }
        }
        let packet = try result.get()
        return (ranges.map { Array(bytes[$0]) }, Array(bytes[packet.topic]), Array(bytes[packet.payload]))
    }

    static func parseDelivery(_ bytes: [UInt8]) throws(DataPacketError) -> DataPacket.Delivery {
        try bytes.withUnsafeBytes { raw in Result { () throws(DataPacketError) in try DataPacket.Delivery(parsing: raw) } }.get()
    }

    @Test func buildsAndReadsTheAnnotatedPublish() throws {
        #expect(try DataPacket.publish(payload: Array("hi".utf8), to: ["bob", "carol"], topic: "t") == Self.publish)
        let parsed = try Self.parsePublish(Self.publish)
        #expect(parsed.recipients == [Array("bob".utf8), Array("carol".utf8)])
        #expect(parsed.topic == Array("t".utf8) && parsed.payload == Array("hi".utf8))
    }

    @Test func writesAndReadsTheAnnotatedDelivery() throws {
        var out: [UInt8] = []
        let written = Array("t".utf8).withUnsafeBytes { t in
            Array("hi".utf8).withUnsafeBytes { p in
                Result { () throws(DataPacketError) in try DataPacket.writeDelivery(sender: "alice".utf8, topic: t, payload: p, into: &out) }
            }
        }
        try written.get()
        #expect(out == Self.delivery)
        #expect(try Self.parseDelivery(Self.delivery) == DataPacket.Delivery(from: "alice", topic: "t", payload: Array("hi".utf8)))
    }

    @Test func noRecipientsMeansEveryoneAndAnEmptySenderIsTheBackend() throws {
        let packet = try DataPacket.publish(payload: [], to: [], topic: nil)
        #expect(packet == [0x01, 0x00, 0x00])
        #expect(try Self.parsePublish(packet).recipients.isEmpty)
        #expect(try Self.parseDelivery([0x02, 0x00, 0x00, 0xFF]) == DataPacket.Delivery(from: nil, topic: nil, payload: [0xFF]))
    }

    @Test func limitsAreEnforced() throws {
        #expect(throws: DataPacketError.tooLarge) { try DataPacket.publish(payload: [UInt8](repeating: 0, count: DataPacket.maxSize - 2), to: [], topic: nil) }
        #expect(throws: DataPacketError.fieldTooLong) { try DataPacket.publish(payload: [], to: [], topic: String(repeating: "x", count: 256)) }
        #expect(throws: DataPacketError.emptyRecipient) { try DataPacket.publish(payload: [], to: [""], topic: nil) }
        #expect(throws: DataPacketError.tooManyRecipients) { try DataPacket.publish(payload: [], to: (0...255).map(String.init), topic: nil) }
        #expect(throws: DataPacketError.tooLarge) { try Self.parsePublish([0x01, 0x00, 0x00] + [UInt8](repeating: 0, count: DataPacket.maxSize)) }
    }

    @Test func wrongKindsAndLyingLengthsAreRefused() throws {
        #expect(throws: DataPacketError.wrongKind(2)) { try Self.parsePublish(Self.delivery) }
        #expect(throws: DataPacketError.wrongKind(1)) { try Self.parseDelivery(Self.publish) }
        #expect(throws: DataPacketError.emptyRecipient) { try Self.parsePublish([0x01, 0x01, 0x00, 0x00]) }
        #expect(throws: DataPacketError.invalidText) { try Self.parseDelivery([0x02, 0x01, 0xFF, 0x00]) }
        for length in 0..<Self.publish.count - 2 {
            #expect(throws: DataPacketError.self) { try Self.parsePublish(Array(Self.publish.prefix(length))) }
        }
    }

    @Test func relaysTheAnnotatedPublishWithItsSenderAndReadsItBack() throws {
        #expect(try Self.writeRelay(sender: "alice", published: Self.publish) == Self.relayed)
        let parsed = try Self.parseRelayed(Self.relayed)
        #expect(parsed.sender == Array("alice".utf8) && parsed.recipients == [Array("bob".utf8), Array("carol".utf8)])
        #expect(parsed.topic == Array("t".utf8) && parsed.payload == Array("hi".utf8))
        // From the backend (no sender), to everyone, no topic, no payload.
        let backend = try Self.writeRelay(sender: "", published: [0x01, 0x00, 0x00])
        #expect(backend == [0x03, 0x00, 0x00, 0x00])
        let empty = try Self.parseRelayed(backend)
        #expect(empty.sender.isEmpty && empty.recipients.isEmpty && empty.topic.isEmpty && empty.payload.isEmpty)
    }

    @Test func relayedPacketsKeepTheLimitsAndRefuseLyingLengths() throws {
        // The largest publish packet relays with the longest sender; one byte more does not.
        let largest = [0x01, 0x00, 0x00] + [UInt8](repeating: 0, count: DataPacket.maxSize - 3)
        let long = String(repeating: "u", count: 255)
        #expect(try Self.writeRelay(sender: long, published: largest).count == DataPacket.relayMaxSize)
        #expect(throws: DataPacketError.tooLarge) { try Self.parseRelayed([0x03, 0x00, 0x00, 0x00] + [UInt8](repeating: 0, count: DataPacket.relayMaxSize)) }
        #expect(throws: DataPacketError.fieldTooLong) { try Self.writeRelay(sender: String(repeating: "u", count: 256), published: Self.publish) }
        #expect(throws: DataPacketError.wrongKind(2)) { try Self.writeRelay(sender: "alice", published: Self.delivery) }
        #expect(throws: DataPacketError.truncated) { try Self.writeRelay(sender: "alice", published: []) }
        #expect(throws: DataPacketError.wrongKind(1)) { try Self.parseRelayed(Self.publish) }
        #expect(throws: DataPacketError.wrongKind(3)) { try Self.parsePublish(Self.relayed) }
        #expect(throws: DataPacketError.wrongKind(3)) { try Self.parseDelivery(Self.relayed) }
        #expect(throws: DataPacketError.emptyRecipient) { try Self.parseRelayed([0x03, 0x01, 0x61, 0x01, 0x00, 0x00]) }
        // A sender length past the end, and every truncation of the fixture.
        #expect(throws: DataPacketError.truncated) { try Self.parseRelayed([0x03, 0x09, 0x61, 0x00, 0x00]) }
        for length in 0..<Self.relayed.count - 2 {
            #expect(throws: DataPacketError.self) { try Self.parseRelayed(Array(Self.relayed.prefix(length))) }
        }
    }

    @Test func tenThousandSeededRandomRelayedInputsNeverCrashAndReencode() throws {
        var random = SeededRandom(seed: 0x5245_4C59)
        for _ in 0..<10_000 {
            var bytes = random.bytes(Int.random(in: 0...40, using: &random))
            if !bytes.isEmpty { bytes[0] = 3 }
            if bytes.count > 1 { bytes[1] &= 0x07 }
            if let parsed = try? Self.parseRelayed(bytes), let sender = String(validating: parsed.sender, as: UTF8.self) {
                // What parses is the relay of the publish packet it carries.
                let published = [DataPacket.publishKind] + Array(bytes[(2 + parsed.sender.count)...])
                #expect(try Self.writeRelay(sender: sender, published: published) == bytes)
            }
        }
    }

    @Test func tenThousandSeededRandomInputsNeverCrash() throws {
        var random = SeededRandom(seed: 0x4441_5441)
        for _ in 0..<10_000 {
            var bytes = random.bytes(Int.random(in: 0...40, using: &random))
            if !bytes.isEmpty { bytes[0] = UInt8.random(in: 1...2, using: &random) }
            if bytes.count > 1 { bytes[1] &= 0x07 }
            if let parsed = try? Self.parsePublish(bytes) {
                // What parses re-encodes to the same bytes when its fields are valid text.
                let uids = parsed.recipients.compactMap { String(validating: $0, as: UTF8.self) }
                if uids.count == parsed.recipients.count, let topic = String(validating: parsed.topic, as: UTF8.self) {
                    #expect(try DataPacket.publish(payload: parsed.payload, to: uids, topic: topic.isEmpty ? nil : topic) == bytes)
                }
            }
            _ = try? Self.parseDelivery(bytes)
        }
    }
}
