// The E2EE layout of an H.264 access unit (docs/e2ee.md, "Frame format"). An encoder's frame is
// Annex B: NAL units after start codes. What the SFU and the receiving browser read stays clear:
//
// - every NAL unit before the first slice (SPS, PPS, SEI, AUD …: the SFU and the receiver's
//   depacketizer tell key frames by SPS and IDR, and a browser's depacketizer keeps the
//   parameter sets),
// - the first slice's NAL header and its slice header up to pic_parameter_set_id
//   (first_mb_in_slice, slice_type, pic_parameter_set_id: three ue(v), H.264 §7.3.3), which a
//   browser's depacketizer reads from an IDR to check it has that PPS.
//
// The rest of the access unit (the slice's data and any later NAL units with their start codes)
// is the SFrame plaintext. The SFrame header ‖ ciphertext ‖ tag then go into the first slice's NAL
// unit with emulation prevention (H.264 §7.4.1), so they hold no start code and a packetizer
// sends them as that one NAL unit. The clear NAL units are written with 4-byte start codes, as
// every RTP depacketizer writes them back, and authenticated in that form:
//
//     e2ee_frame = clear ‖ escape(SFrame header ‖ AEAD(key, nonce, aad = SFrame header ‖ clear, rest))
//     clear      = (00 00 00 01 ‖ NAL unit)* ‖ 00 00 00 01 ‖ slice NAL header ‖ slice header to the PPS id

extension E2EEFrame {
    /// Appends the encrypted form of the H.264 access unit `frame` to `out`.
    static func encryptH264(_ frame: UnsafeRawBufferPointer, with encryptor: SFrameEncryptor,
                            appendingTo out: inout [UInt8]) throws(SFrameError) -> SFrameHeader {
        let start = out.count
        do {
            let slice = try appendH264Clear(frame, to: &out)
            let sframeStart = out.count
            let header = try encryptor.encrypt(UnsafeRawBufferPointer(rebasing: frame[slice.upperBound...]), metadataIn: start..<sframeStart,
                                               appendingTo: &out)
            H264.escape(&out, from: sframeStart, zeros: trailingZeros(frame, slice))
            return header
        } catch {
            out.removeSubrange(start...)
            throw error
        }
    }

    /// Appends the access unit that the encrypted H.264 frame `encrypted` carries to `out` (its
    /// clear NAL units with 4-byte start codes, then the rest as the sender had it).
    static func decryptH264(_ encrypted: UnsafeRawBufferPointer, with decryptor: SFrameDecryptor,
                            appendingTo out: inout [UInt8]) throws(SFrameError) -> SFrameHeader {
        let start = out.count
        do {
            let slice = try appendH264Clear(encrypted, to: &out)
            let sframeStart = out.count
            H264.unescape(UnsafeRawBufferPointer(rebasing: encrypted[slice.upperBound...]), zeros: trailingZeros(encrypted, slice),
                          appendingTo: &out)
            let sframeEnd = out.count
            let header = try decryptor.decrypt(sframeIn: sframeStart..<sframeEnd, metadataIn: start..<sframeStart, appendingTo: &out)
            // The plaintext was appended after the SFrame bytes: move it in their place.
            out.removeSubrange(sframeStart..<sframeEnd)
            return header
        } catch {
            out.removeSubrange(start...)
            throw error
        }
    }

    /// Appends the clear part of `frame` (see the top of the file) to `out`; the range of `frame`
    /// that the first slice's clear bytes (NAL header and slice header to the PPS id) span.
    /// - Throws: `malformedFrame` when there is no start code, no slice, or a slice header that
    ///   ends before its PPS id.
    public static func appendH264Clear(_ frame: UnsafeRawBufferPointer, to out: inout [UInt8]) throws(SFrameError) -> Range<Int> {
        guard var code = nextStartCode(frame, from: 0) else { throw .malformedFrame }
        while true {
            let unitStart = code + 3
            let next = nextStartCode(frame, from: unitStart)
            var unitEnd = next ?? frame.count
            // A four-byte start code's leading zero belongs to the code (as in `H264.nalUnits`).
            if next != nil, unitEnd > unitStart, frame[unitEnd - 1] == 0 { unitEnd -= 1 }
            if unitEnd > unitStart {
                let type = frame[unitStart] & 0x1F
                let isSlice = type >= H264.NALType.slice && type <= H264.NALType.idr
                let clearEnd = isSlice ? try unitStart + 1 + sliceHeaderLength(frame, from: unitStart + 1, to: unitEnd) : unitEnd
                out.append(contentsOf: H264.startCode)
                out.append(contentsOf: UnsafeRawBufferPointer(rebasing: frame[unitStart..<clearEnd]))
                if isSlice { return unitStart..<clearEnd }
            }
            guard let next else { throw .malformedFrame }
            code = next
        }
    }

    /// Index of the next `00 00 01` at or after `from`.
    private static func nextStartCode(_ bytes: UnsafeRawBufferPointer, from: Int) -> Int? {
        var i = from
        while i + 2 < bytes.count {
            if bytes[i + 2] > 1 {
                i += 3
            } else if bytes[i] == 0, bytes[i + 1] == 0, bytes[i + 2] == 1 {
                return i
            } else {
                i += 1
            }
        }
        return nil
    }

    /// How many bytes of a slice's NAL unit (after its header, at `from`) hold first_mb_in_slice,
    /// slice_type and pic_parameter_set_id (H.264 §7.3.3), emulation prevention bytes included.
    static func sliceHeaderLength(_ bytes: UnsafeRawBufferPointer, from: Int, to end: Int) throws(SFrameError) -> Int {
        var reader = RBSPBitReader(bytes: bytes, position: from, end: end)
        for _ in 0..<3 { try reader.skipExpGolomb() }
        return reader.position - from
    }

    /// How many 00 bytes (up to 2) end the first slice's clear bytes (after its NAL header):
    /// emulation prevention goes on from them.
    private static func trailingZeros(_ frame: UnsafeRawBufferPointer, _ slice: Range<Int>) -> Int {
        var count = 0, i = slice.upperBound - 1
        while count < 2, i > slice.lowerBound, frame[i] == 0 { count += 1; i -= 1 }
        return count
    }
}

/// Reads bits of a NAL unit's payload, skipping its emulation prevention bytes (H.264 §7.4.1).
struct RBSPBitReader {
    let bytes: UnsafeRawBufferPointer
    /// Index of the next byte to load.
    private(set) var position: Int
    let end: Int
    private var current: UInt8 = 0
    private var bitsLeft = 0
    private var zeros = 0

    init(bytes: UnsafeRawBufferPointer, position: Int, end: Int) {
        self.bytes = bytes
        self.position = position
        self.end = end
    }

    mutating func bit() throws(SFrameError) -> UInt8 {
        if bitsLeft == 0 {
            guard position < end else { throw .malformedFrame }
            var byte = bytes[position]
            if zeros >= 2, byte == 0x03 {
                position += 1
                zeros = 0
                guard position < end else { throw .malformedFrame }
                byte = bytes[position]
            }
            zeros = byte == 0 ? zeros + 1 : 0
            current = byte
            position += 1
            bitsLeft = 8
        }
        bitsLeft -= 1
        return current >> bitsLeft & 1
    }

    /// Skips one ue(v) (H.264 §9.1); longer than 32 bits is malformed.
    mutating func skipExpGolomb() throws(SFrameError) {
        var leadingZeros = 0
        while try bit() == 0 {
            leadingZeros += 1
            guard leadingZeros < 32 else { throw .malformedFrame }
        }
        for _ in 0..<leadingZeros { _ = try bit() }
    }
}
