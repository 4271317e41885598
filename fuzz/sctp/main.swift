// libFuzzer target for SCTP packets as a data channel transport receives them (RFC 9260 chunks,
// RFC 3758 FORWARD-TSN, RFC 6525 stream reconfiguration, RFC 8831 over RFC 8261): usrsctp
// parses the chunks and SCTPAssociation turns what it delivers (messages, fragments,
// association changes, stream resets) into events. Two associations are connected in-process
// (A and B); each input is a list of packets fed to one of them, with the common header's ports
// and verification tag set to the live association's so the chunks are parsed rather than dropped
// at the header; after each packet both sides exchange what they answered. CRC32c checking is off
// (usrsctp_enable_crc32c_offload) so that the bytes after the header count. A broken association
// (ABORT, SHUTDOWN) is replaced by a fresh pair for the next input.
//
// Input layout: records of [flags: 1 byte][length: 2 bytes, big endian][packet: length bytes].
// flags bit 0: to A (else to B); bit 1: keep the packet's own verification tag (an INIT has 0).
#if canImport(RTCTransport)
import CUsrSCTP
import RTCTransport
#endif

/// Packets each side sent, not yet delivered, and the verification tag each side expects (read
/// from the other side's packets to it). Touched only from the fuzzing thread: usrsctp runs
/// without threads of its own here and calls the outputs from inside our calls.
private final class Wire: @unchecked Sendable {
    var toA: [[UInt8]] = []
    var toB: [[UInt8]] = []
    var tagOfA: [UInt8] = [0, 0, 0, 0]
    var tagOfB: [UInt8] = [0, 0, 0, 0]

    func sent(_ packet: UnsafeRawBufferPointer, toA: Bool) {
        let bytes = [UInt8](packet)
        if bytes.count >= 12, bytes[4..<8] != [0, 0, 0, 0] {
            if toA { tagOfA = Array(bytes[4..<8]) } else { tagOfB = Array(bytes[4..<8]) }
        }
        if toA { self.toA.append(bytes) } else { toB.append(bytes) }
    }
}

private struct Pair {
    let wire = Wire()
    let a: SCTPAssociation
    let b: SCTPAssociation

    init?() {
        let wire = self.wire
        guard let a = try? SCTPAssociation(output: { wire.sent($0, toA: false) }, execute: { $0() }),
              let b = try? SCTPAssociation(output: { wire.sent($0, toA: true) }, execute: { $0() }) else { return nil }
        self.a = a
        self.b = b
        usrsctp_enable_crc32c_offload()
        try? a.connect()
        try? b.connect()
        exchange(rounds: 20)
    }

    var isConnected: Bool { a.isConnected && b.isConnected }

    /// Delivers what each side sent, for at most `rounds` rounds (two sides can answer each other forever).
    func exchange(rounds: Int) {
        for _ in 0..<rounds where !wire.toA.isEmpty || !wire.toB.isEmpty {
            let (forA, forB) = (wire.toA, wire.toB)
            wire.toA = []
            wire.toB = []
            for packet in forA { packet.withUnsafeBytes { a.receive($0) } }
            for packet in forB { packet.withUnsafeBytes { b.receive($0) } }
        }
    }

    func close() {
        a.close()
        b.close()
    }
}

nonisolated(unsafe) private var pair: Pair?

@_cdecl("LLVMFuzzerTestOneInput")
public func sctpFuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    if pair?.isConnected != true {
        pair?.close()
        pair = Pair()
    }
    guard let pair else { return 0 }
    let input = UnsafeRawBufferPointer(start: data, count: size)
    var offset = 0
    while offset + 3 <= size {
        let flags = input[offset]
        let length = Int(input[offset + 1]) << 8 | Int(input[offset + 2])
        offset += 3
        let end = min(offset + length, size)
        var packet = [UInt8](input[offset..<end])
        offset = end
        let toA = flags & 1 != 0
        if packet.count >= 12 {
            // Both sides use port 5000 (RFC 8841 §5); the tag is the receiver's own.
            packet.replaceSubrange(0..<4, with: [0x13, 0x88, 0x13, 0x88])
            if flags & 2 == 0 { packet.replaceSubrange(4..<8, with: toA ? pair.wire.tagOfA : pair.wire.tagOfB) }
        }
        packet.withUnsafeBytes { toA ? pair.a.receive($0) : pair.b.receive($0) }
        pair.exchange(rounds: 8)
    }
    return 0
}
