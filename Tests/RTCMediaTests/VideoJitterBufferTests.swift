import Testing
@testable import RTCMedia
import TestRandom

@Suite struct VideoJitterBufferTests {
    struct RTPPacket {
        var payload: [UInt8]
        var sequence: UInt16
        var timestamp: UInt32
        var marker: Bool
    }

    /// A fake VP8 frame (key frames carry P = 0 and the start code) split into `packets` payloads.
    static func packets(frame index: Int, key: Bool, packets count: Int, firstSequence: UInt16,
                        packetizer: inout VP8Packetizer) -> [RTPPacket] {
        var data = (0..<(count * 1_000 - 500)).map { UInt8(truncatingIfNeeded: $0 &+ index) }
        data[0] = key ? 0x50 : 0x51
        if key { data[3] = 0x9D; data[4] = 0x01; data[5] = 0x2A }
        let payloads = packetizer.packetize(data)
        precondition(payloads.count == count)
        return payloads.enumerated().map { position, payload in
            RTPPacket(payload: payload, sequence: firstSequence &+ UInt16(position), timestamp: UInt32(index * 3_000),
                      marker: position == count - 1)
        }
    }

    /// Frames 0…n−1 (frame 0 and every index in `keys` are key frames), `per` packets each, from `start`.
    static func stream(frames n: Int, per: Int = 2, keys: Set<Int> = [0], start: UInt16 = 0) -> [RTPPacket] {
        var packetizer = VP8Packetizer(maxPayloadSize: 1_004, initialPictureID: 0)
        var sequence = start
        var all: [RTPPacket] = []
        for index in 0..<n {
            all += packets(frame: index, key: keys.contains(index), packets: per, firstSequence: sequence,
                           packetizer: &packetizer)
            sequence &+= UInt16(per)
        }
        return all
    }

    @discardableResult
    private func insert(_ packet: RTPPacket, into buffer: inout VideoJitterBuffer) throws -> VideoJitterBuffer.InsertResult {
        try buffer.insert(payload: packet.payload, sequenceNumber: packet.sequence, timestamp: packet.timestamp,
                          marker: packet.marker)
    }

    @Test func reordersPacketsAndEmitsFramesInOrder() throws {
        let packets = Self.stream(frames: 3)   // sequences 0…5
        var buffer = VideoJitterBuffer()
        var emitted: [UInt32] = []
        for index in [1, 3, 0, 5, 4, 2] {
            let value1 = try insert(packets[index], into: &buffer)
            #expect(value1 == .accepted)
            emitted += buffer.popFrames(nowUs: 0).map(\.rtpTimestamp)
            if index == 0 { #expect(emitted == [0]) }          // frame 0 complete after packet 0
            if index == 4 { #expect(emitted == [0]) }          // frame 2 complete but frame 1 still waits for 2
        }
        #expect(emitted == [0, 3_000, 6_000])
        #expect(buffer.packetCount == 0 && buffer.statistics.framesEmitted == 3)
    }

    @Test func emittedFramesCarryTheOriginalBytes() throws {
        let packets = Self.stream(frames: 2, per: 3)
        var buffer = VideoJitterBuffer()
        for packet in packets.reversed() { try insert(packet, into: &buffer) }
        let frames = buffer.popFrames(nowUs: 0)
        try #require(frames.count == 2)
        #expect(frames[0].data == packets[0..<3].flatMap { $0.payload[4...] })
        #expect(frames[0].isKeyFrame && !frames[1].isKeyFrame)
        #expect(frames.map(\.pictureID) == [0, 1])
        #expect(frames[1].firstSequenceNumber == 3 && frames[1].lastSequenceNumber == 5)
    }

    @Test func duplicatesAndLatePacketsAreIgnored() throws {
        let packets = Self.stream(frames: 2)
        var buffer = VideoJitterBuffer()
        let value2 = try insert(packets[0], into: &buffer)
        #expect(value2 == .accepted)
        let value3 = try insert(packets[0], into: &buffer)
        #expect(value3 == .duplicate)
        let value4 = try insert(packets[1], into: &buffer)
        #expect(value4 == .accepted)
        let value5 = buffer.popFrames(nowUs: 0)
        #expect(value5.count == 1)
        let value6 = try insert(packets[1], into: &buffer)
        #expect(value6 == .late)   // already emitted
        #expect(buffer.statistics.duplicates == 1 && buffer.statistics.latePackets == 1)
    }

    @Test func sequenceNumbersWrapAt65535() throws {
        let packets = Self.stream(frames: 4, per: 2, start: 65_533)   // 65533 … 65535, 0 … 4
        var buffer = VideoJitterBuffer()
        var order = Array(packets.indices)
        order.swapAt(2, 3)   // 65535 after 0
        var frames: [DepacketizedVideoFrame] = []
        for index in order {
            try insert(packets[index], into: &buffer)
            frames += buffer.popFrames(nowUs: 0)
        }
        #expect(frames.map(\.rtpTimestamp) == [0, 3_000, 6_000, 9_000])
        #expect(frames[1].firstSequenceNumber == 65_535 && frames[1].lastSequenceNumber == 0)
        let value7 = buffer.missingSequenceNumbers(nowUs: 0)
        #expect(value7 == [])
    }

    @Test func missingPacketsAreReportedForNACKAtTheRetryInterval() throws {
        let packets = Self.stream(frames: 3, start: 65_534)   // 65534, 65535, 0, 1, 2, 3
        var buffer = VideoJitterBuffer()
        for index in [0, 1, 4, 5] { try insert(packets[index], into: &buffer) }   // frame 1 (0, 1) lost
        let value8 = buffer.popFrames(nowUs: 0)
        #expect(value8.count == 1)
        let value9 = buffer.missingSequenceNumbers(nowUs: 1_000)
        #expect(value9 == [0, 1])
        let value10 = buffer.missingSequenceNumbers(nowUs: 20_000)
        #expect(value10 == [])           // within 40 ms of the NACK
        let value11 = buffer.missingSequenceNumbers(nowUs: 41_000)
        #expect(value11 == [0, 1])
        try insert(packets[2], into: &buffer)                                 // retransmission arrives
        let value12 = buffer.missingSequenceNumbers(nowUs: 90_000)
        #expect(value12 == [1])
        try insert(packets[3], into: &buffer)
        let value13 = buffer.popFrames(nowUs: 90_000)
        #expect(value13.map(\.rtpTimestamp) == [3_000, 6_000])
        #expect(buffer.statistics.lostPackets == 0)
    }

    @Test func nackRetriesAreCapped() throws {
        let packets = Self.stream(frames: 2)
        var buffer = VideoJitterBuffer()
        for index in [0, 1, 3] { try insert(packets[index], into: &buffer) }
        _ = buffer.popFrames(nowUs: 0)
        let sent = (0..<10).map { buffer.missingSequenceNumbers(nowUs: Int64($0) * 50_000) }
        #expect(sent.filter { $0 == [2] }.count == 5)
    }

    @Test func givingUpAFrameAsksForAKeyFrameAndWithholdsDeltas() throws {
        let packets = Self.stream(frames: 5, keys: [0, 4])
        var buffer = VideoJitterBuffer()
        #expect(buffer.needsKeyFrame)
        let value14 = buffer.shouldRequestKeyFrame(nowUs: -1_000_000)
        #expect(value14)                 // nothing decodable yet
        for index in [0, 1] { try insert(packets[index], into: &buffer) }
        let value15 = buffer.popFrames(nowUs: 0)
        #expect(value15.count == 1 && !buffer.needsKeyFrame)
        for index in [3, 4, 5, 6, 7] { try insert(packets[index], into: &buffer) }   // packet 2 (frame 1) lost
        let value16 = buffer.popFrames(nowUs: 10_000)
        #expect(value16.isEmpty)              // starts waiting
        let value17 = buffer.popFrames(nowUs: 200_000)
        #expect(value17.isEmpty)             // still within 250 ms
        let value18 = buffer.popFrames(nowUs: 260_001)
        #expect(value18.isEmpty)             // frame 1 given up; 2 and 3 withheld
        #expect(buffer.needsKeyFrame)
        let value19 = buffer.shouldRequestKeyFrame(nowUs: 260_001)
        #expect(value19)
        let value20 = buffer.shouldRequestKeyFrame(nowUs: 300_000)
        #expect(!value20)        // rate limited
        for index in [8, 9] { try insert(packets[index], into: &buffer) }
        let value21 = buffer.popFrames(nowUs: 300_000)
        #expect(value21.map(\.isKeyFrame) == [true])
        let value22 = buffer.shouldRequestKeyFrame(nowUs: 900_000)
        #expect(!buffer.needsKeyFrame && !value22)
        #expect(buffer.statistics.lostPackets == 1 && buffer.statistics.framesDropped == 3)
    }

    @Test func aCompleteKeyFrameIsEmittedWithoutWaitingForOlderLosses() throws {
        let packets = Self.stream(frames: 3, keys: [0, 2])
        var buffer = VideoJitterBuffer()
        for index in [0, 1, 2, 4, 5] { try insert(packets[index], into: &buffer) }   // packet 3 lost
        let value23 = buffer.popFrames(nowUs: 0)
        #expect(value23.map(\.rtpTimestamp) == [0, 6_000])
    }

    @Test func memoryStaysBoundedAndFarJumpsReset() throws {
        var configuration = VideoJitterBuffer.Configuration()
        configuration.capacity = 64
        var buffer = VideoJitterBuffer(configuration: configuration)
        // Continuation packets (never a frame start) in a run far longer than the ring.
        for sequence in 0..<1_000 {
            try buffer.insert(payload: [0x00, 0xAA], sequenceNumber: UInt16(sequence), timestamp: 0, marker: false)
            #expect(buffer.packetCount <= 64)
        }
        #expect(buffer.statistics.resets > 0)
        let value24 = try buffer.insert(payload: [0x10, 0x50, 0, 0], sequenceNumber: 30_000, timestamp: 1, marker: true)
        #expect(value24 == .reset)
        #expect(buffer.packetCount == 1)
        let value25 = buffer.popFrames(nowUs: 0)
        #expect(value25.count == 1)
    }

    @Test func malformedPayloadsThrowAndAreNotStored() {
        var buffer = VideoJitterBuffer()
        #expect(throws: RTPPayloadError.truncatedDescriptor(needed: 2, available: 1)) {
            try buffer.insert(payload: [0x80], sequenceNumber: 1, timestamp: 0, marker: true)
        }
        #expect(throws: RTPPayloadError.truncatedVP8Header) {
            try buffer.insert(payload: [0x10, 0x50], sequenceNumber: 1, timestamp: 0, marker: true)
        }
        #expect(buffer.packetCount == 0)
    }

    @Test func seededRandomReorderingLossAndDuplicationKeepsFramesIntact() throws {
        var random = SeededRandom(seed: 3550)
        let packets = Self.stream(frames: 300, per: 3, keys: Set(stride(from: 0, to: 300, by: 30)), start: 65_000)
        var original: [UInt32: [UInt8]] = [:]
        for packet in packets { original[packet.timestamp, default: []] += packet.payload[4...] }
        let bySequence = Dictionary(uniqueKeysWithValues: packets.map { ($0.sequence, $0) })
        var buffer = VideoJitterBuffer()
        var now: Int64 = 0
        var emitted: [DepacketizedVideoFrame] = []
        var index = 0
        while index < packets.count {
            // Deliver a window of up to 6 packets in random order, with 2 % loss and 5 % duplicates.
            let window = Array(packets[index..<min(index + Int.random(in: 1...6, using: &random), packets.count)])
            index += window.count
            for packet in window.shuffled(using: &random) where Int.random(in: 0..<100, using: &random) >= 2 {
                try insert(packet, into: &buffer)
                if Int.random(in: 0..<100, using: &random) < 5 { try insert(packet, into: &buffer) }
            }
            now += 33_000
            // Answer NACKs like a sender would, the retransmissions also subject to loss.
            for sequence in buffer.missingSequenceNumbers(nowUs: now) where Int.random(in: 0..<100, using: &random) >= 2 {
                if let packet = bySequence[sequence] { try insert(packet, into: &buffer) }
            }
            emitted += buffer.popFrames(nowUs: now)
            #expect(buffer.packetCount <= 1_024)
        }
        emitted += buffer.popFrames(nowUs: now + 1_000_000)
        #expect(emitted.count >= 290, "\(buffer.statistics)")
        for (previous, frame) in zip(emitted, emitted.dropFirst()) { #expect(frame.rtpTimestamp > previous.rtpTimestamp) }
        for frame in emitted { #expect(frame.data == original[frame.rtpTimestamp]) }
    }
}

extension VideoJitterBufferTests {
    @Test func paddingOnlyPacketsBetweenFramesAreSteppedOverAndNeverNACKed() throws {
        // Frames 0 and 1 (sequences 0…3), three padding packets (4…6, the second one reordered
        // after frame 2), then frames 2 and 3 (7…10), as a server probing between frames sends them.
        let frames = Self.stream(frames: 4)
        var moved = frames
        for index in 4 ..< 8 { moved[index].sequence &+= 3 }
        var buffer = VideoJitterBuffer()
        var emitted: [UInt32] = []
        for packet in moved[0 ..< 4] {
            try buffer.insert(payload: packet.payload, sequenceNumber: packet.sequence, timestamp: packet.timestamp, marker: packet.marker)
        }
        emitted += buffer.popFrames(nowUs: 0).map(\.rtpTimestamp)
        buffer.insertPadding(sequenceNumber: 4, timestamp: 3_000)
        buffer.insertPadding(sequenceNumber: 6, timestamp: 3_000)
        for packet in moved[4 ..< 6] {
            try buffer.insert(payload: packet.payload, sequenceNumber: packet.sequence, timestamp: packet.timestamp, marker: packet.marker)
        }
        // 5 (padding) has not come yet: frame 2 waits, and 5 is missing.
        emitted += buffer.popFrames(nowUs: 0).map(\.rtpTimestamp)
        #expect(emitted == [0, 3_000])
        #expect(buffer.missingSequenceNumbers(nowUs: 0) == [5])
        buffer.insertPadding(sequenceNumber: 5, timestamp: 3_000)
        for packet in moved[6 ..< 8] {
            try buffer.insert(payload: packet.payload, sequenceNumber: packet.sequence, timestamp: packet.timestamp, marker: packet.marker)
        }
        emitted += buffer.popFrames(nowUs: 0).map(\.rtpTimestamp)
        #expect(emitted == [0, 3_000, 6_000, 9_000])
        #expect(buffer.missingSequenceNumbers(nowUs: 10_000_000).isEmpty)
        #expect(buffer.statistics.lostPackets == 0 && buffer.statistics.framesDropped == 0 && !buffer.needsKeyFrame)
    }

    @Test func aPacketBeforeTheFirstIsMissingTooAndGivenUpNumbersAreNotAskedAgain() throws {
        let packets = Self.stream(frames: 4, keys: [0, 3], start: 100)   // 100 … 107; frame 3 (106, 107) a key frame
        var buffer = VideoJitterBuffer()
        try insert(packets[3], into: &buffer)   // 103 first
        try insert(packets[0], into: &buffer)   // then 100, reordered at the start: 101 and 102 are missing
        #expect(buffer.missingSequenceNumbers(nowUs: 0) == [101, 102])
        try insert(packets[1], into: &buffer)
        #expect(buffer.popFrames(nowUs: 0).map(\.rtpTimestamp) == [0])
        #expect(buffer.missingSequenceNumbers(nowUs: 50_000) == [102])
        // The key frame after the gap: everything before it is given up, and no longer NACKed.
        try insert(packets[6], into: &buffer)
        try insert(packets[7], into: &buffer)
        #expect(buffer.popFrames(nowUs: 60_000).map(\.rtpTimestamp) == [9_000])
        #expect(buffer.missingSequenceNumbers(nowUs: 1_000_000).isEmpty)
        #expect(buffer.statistics.lostPackets == 3)
    }

    @Test func packetsReorderedWithinTheLearntAllowanceAreNotNACKedButALossIs() throws {
        let packets = Self.stream(frames: 20, per: 3)   // 0 … 59, three a frame
        var buffer = VideoJitterBuffer()
        // Packet i leaves at i ms; each frame's middle one comes 1.5 ms late (after the frame's
        // last), and 49 never comes. Each arrival polls, as the SDK's video receiver does.
        var arrivals = packets.enumerated().map { index, packet in (packet, Int64(index) * 1_000 + (index % 3 == 1 ? 1_500 : 0)) }
        arrivals.removeAll { $0.0.sequence == 49 }
        arrivals.sort { $0.1 < $1.1 }
        var nacked: [UInt16] = []
        for (packet, at) in arrivals {
            try buffer.insert(payload: packet.payload, sequenceNumber: packet.sequence, timestamp: packet.timestamp,
                              marker: packet.marker, arrivalUs: at)
            _ = buffer.popFrames(nowUs: at)
            nacked += buffer.missingSequenceNumbers(nowUs: at)
        }
        // 1 is asked for (no reordering seen yet); it came one newer number late, so later gaps
        // wait for a second newer number (or 2 ms): the late middles are not asked for, 49 is.
        #expect(nacked == [1, 49])
    }
}
