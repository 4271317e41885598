import Testing
import RTCWire
import TestRandom
import TestWait

@Suite struct SpeedTestPacketTests {
    /// A pong, field by field.
    static let pong: [UInt8] = [
        0x0c, 0x01, 0x05, 0x00,                          // marker 0x0C, version 1, kind 5 (pong), reserved
        0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,  // session 0x0102030405060708
        0x00, 0x00, 0x00, 0x2a,                          // sequence 42
        0x00, 0x00, 0x00, 0x00, 0x00, 0x0f, 0x42, 0x40,  // send time 1 000 000 µs
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xe8,  // echoed ping time 1000 µs
        0x00, 0x00, 0x00, 0x07,                          // pings received 7
        0x00, 0x00, 0x00, 0x00,                          // padding to 40 bytes
    ]

    @Test func pongFixtureParsesFieldByField() throws {
        let packet = try SpeedTestPacket(bytes: Self.pong)
        #expect(packet.kind == .pong)
        #expect(packet.session == 0x0102_0304_0506_0708)
        #expect(packet.sequence == 42)
        #expect(packet.timestampMicros == 1_000_000)
        #expect(packet.body == .pong(echoedTimestamp: 1000, pingsReceived: 7))
        #expect(packet.size == 40)
        #expect(packet.bytes == Self.pong)
    }

    static let samples: [SpeedTestPacket] = [
        SpeedTestPacket(kind: .hello, timestampMicros: 9, body: .hello(token: "eyJ.a.b"), size: SpeedTestPacket.minimumHelloSize),
        SpeedTestPacket(kind: .welcome, session: 5, body: .welcome(SpeedTestLimits(maxUplinkBitrate: 1, maxDownlinkBitrate: 2, maxDurationMs: 3))),
        SpeedTestPacket(kind: .reject, body: .reject(code: 40107)),
        SpeedTestPacket(kind: .ping, session: 5, sequence: 1, timestampMicros: 77, size: 64),
        SpeedTestPacket(kind: .data, session: 5, sequence: .max, size: 1200),
        SpeedTestPacket(kind: .downlinkStart, session: 5, body: .downlinkStart(bitrate: 4_000_000, durationMs: 1500, packetSize: 1200)),
        SpeedTestPacket(kind: .downlinkData, session: 5, sequence: 3, size: SpeedTestPacket.maximumSize),
        SpeedTestPacket(kind: .reportRequest, session: 5, size: 64),
        SpeedTestPacket(kind: .report, session: 5, body: .report(SpeedTestReport(pingsReceived: 1, pingJitterMicros: 2, dataPackets: 3, dataBytes: 4,
                                                                              firstDataMicros: 5, lastDataMicros: 6))),
        SpeedTestPacket(kind: .bye, session: 5),
        SpeedTestPacket(kind: .downlinkPull, session: 5, sequence: 9, body: .downlinkPull(packetSize: 1200, count: 16)),
    ]

    @Test(arguments: samples)
    func everyKindRoundTrips(_ packet: SpeedTestPacket) throws {
        let bytes = packet.bytes
        #expect(bytes.count == packet.size)
        #expect(try SpeedTestPacket(bytes: bytes) == packet)
    }

    @Test func answersToAHelloAreShorterThanTheHello() {
        let welcome = SpeedTestPacket(kind: .welcome, body: .welcome(SpeedTestLimits(maxUplinkBitrate: 1, maxDownlinkBitrate: 1, maxDurationMs: 1)))
        let reject = SpeedTestPacket(kind: .reject, body: .reject(code: 1))
        #expect(welcome.size == 36 && reject.size == 28)
        #expect(max(welcome.size, reject.size) < SpeedTestPacket.minimumHelloSize)
    }

    @Test func sizeIsRaisedToWhatTheBodyNeeds() {
        #expect(SpeedTestPacket(kind: .pong, body: .pong(echoedTimestamp: 1, pingsReceived: 1), size: 10).size == 36)
        #expect(SpeedTestPacket(kind: .report, body: .report(SpeedTestReport())).size == 60)
    }

    @Test func reportBitrateExcludesTheFirstDatagram() {
        // 11 datagrams of 1000 bytes, the last 1 s after the first: 10 000 bytes in 1 s = 80 kbps.
        let report = SpeedTestReport(dataPackets: 11, dataBytes: 11_000, firstDataMicros: 2_000_000, lastDataMicros: 3_000_000)
        #expect(report.dataBitrate == 80_000)
        #expect(SpeedTestReport(dataPackets: 1, dataBytes: 1000, firstDataMicros: 1, lastDataMicros: 1).dataBitrate == 0)
    }

    @Test func arrivalsMeasureJitterFromTransitChanges() {
        var arrivals = SpeedTestArrivals()
        // Sent every 10 ms; transit alternates 5 ms and 7 ms: |D| = 2000 µs each time after the first.
        for i in 0..<200 {
            let sent = UInt64(i) * 10_000
            arrivals.record(bytes: 100, sentMicros: sent, arrivalMicros: sent + (i % 2 == 0 ? 5000 : 7000) + 1_000_000)
        }
        #expect(arrivals.packets == 200 && arrivals.bytes == 20_000)
        #expect(abs(arrivals.jitterMicros - 2000) < 1)   // J converges to |D| (RFC 3550 §6.4.1)
        var steady = SpeedTestArrivals()
        for i in 0..<50 { steady.record(bytes: 100, sentMicros: UInt64(i) * 1000, arrivalMicros: UInt64(i) * 1000 + 123) }
        #expect(steady.jitterMicros == 0)
    }
}

/// Hostile input: every fault throws a named error, never crashes.
@Suite struct SpeedTestPacketRobustnessTests {
    @Test func everyTruncationOfTheFixtureBelowItsBodyThrows() {
        for length in 0..<36 {
            #expect(throws: SpeedTestPacketError.self) { try SpeedTestPacket(bytes: Array(SpeedTestPacketTests.pong.prefix(length))) }
        }
    }

    @Test func badHeaderFieldsThrowTheirErrors() {
        var bytes = SpeedTestPacketTests.pong
        bytes[0] = 0x0d
        #expect(throws: SpeedTestPacketError.notSpeedTest) { try SpeedTestPacket(bytes: bytes) }
        bytes = SpeedTestPacketTests.pong
        bytes[1] = 2
        #expect(throws: SpeedTestPacketError.unsupportedVersion(2)) { try SpeedTestPacket(bytes: bytes) }
        bytes = SpeedTestPacketTests.pong
        bytes[2] = 99
        #expect(throws: SpeedTestPacketError.unknownKind(99)) { try SpeedTestPacket(bytes: bytes) }
        #expect(throws: SpeedTestPacketError.tooLong) { try SpeedTestPacket(bytes: SpeedTestPacketTests.pong + [UInt8](repeating: 0, count: 1400)) }
    }

    @Test func helloTokenLengthPastTheDatagramThrows() {
        // Header of a hello, then a token length of 0xFFFF and 10 bytes.
        let bytes: [UInt8] = [0x0c, 0x01, 0x01, 0x00] + [UInt8](repeating: 0, count: 20) + [0xff, 0xff] + [UInt8](repeating: 0x41, count: 10)
        #expect(throws: SpeedTestPacketError.tokenOverrun) { try SpeedTestPacket(bytes: bytes) }
    }

    @Test func seededRandomDatagramsNeverCrashAndValidOnesRoundTrip() async {
        // On a thread of its own: 20 000 parses would hold a cooperative thread for a while.
        let (parsed, mismatches) = await onThread { () -> (Int, Int) in
            var random = SeededRandom(seed: 0x5EED_7E57)
            var parsed = 0, mismatches = 0
            for _ in 0..<20_000 {
                var bytes = random.bytes(Int(random.next() % 120))
                if !bytes.isEmpty, random.next() % 2 == 0 { bytes[0] = 0x0c }
                if bytes.count > 2, random.next() % 2 == 0 { bytes[1] = 1; bytes[2] = UInt8(1 + random.next() % 12) }
                guard let packet = try? SpeedTestPacket(bytes: bytes) else { continue }
                parsed += 1
                // Re-serialized, it parses to the same packet (padding is not kept byte for byte).
                if (try? SpeedTestPacket(bytes: packet.bytes)) != packet { mismatches += 1 }
            }
            return (parsed, mismatches)
        }
        #expect(parsed > 100)
        #expect(mismatches == 0)
    }
}
