import Testing
import RTCWire
import TestRandom

/// RFC 4571 framing for ICE-TCP: frames cut anywhere by TCP come out whole and in order.
@Suite struct RFC4571FramingTests {
    @Test func framesAreLengthPrefixed() {
        // length 0x0003, then the packet
        #expect(RFC4571Framer.frame([0xAA, 0xBB, 0xCC]) == [0x00, 0x03, 0xAA, 0xBB, 0xCC])
        #expect(RFC4571Framer.frame([]) == nil)
        #expect(RFC4571Framer.frame([UInt8](repeating: 1, count: 65_536)) == nil)
        #expect(RFC4571Framer.frame([UInt8](repeating: 1, count: 65_535))?.prefix(2) == [0xFF, 0xFF])
    }

    @Test func streamCutAtEveryPointYieldsThePacketsInOrder() throws {
        let packets: [[UInt8]] = [[1], [2, 3], Array(repeating: 9, count: 300), [4, 5, 6, 7]]
        let stream = packets.flatMap { RFC4571Framer.frame($0)! }
        for cut in 0...stream.count {
            var deframer = RFC4571Deframer()
            let first = try deframer.push(Array(stream[..<cut]))
            let second = try deframer.push(Array(stream[cut...]))
            #expect(first + second == packets, "cut at \(cut)")
            #expect(deframer.bufferedCount == 0)
        }
        // One byte at a time.
        var deframer = RFC4571Deframer()
        var out: [[UInt8]] = []
        for byte in stream { out += try deframer.push([byte]) }
        #expect(out == packets)
    }

    @Test func aZeroLengthFrameBreaksTheStream() {
        var deframer = RFC4571Deframer()
        #expect(throws: RFC4571Deframer.Failure.emptyFrame) { _ = try deframer.push([0x00, 0x01, 0x42, 0x00, 0x00]) }
        var split = RFC4571Deframer()
        #expect(throws: RFC4571Deframer.Failure.emptyFrame) { _ = try split.push([0x00]); _ = try split.push([0x00, 0x05]) }
    }

    @Test func seededRandomStreamsNeverGrowTheBufferPastOneFrame() {
        var random = SeededRandom(seed: 4571)
        for _ in 0..<500 {
            var deframer = RFC4571Deframer()
            for _ in 0..<8 {
                let chunk = random.bytes(Int(random.next() % 300))
                guard (try? deframer.push(chunk)) != nil else { break }
                #expect(deframer.bufferedCount <= 2 + 65_535)
            }
        }
    }
}
