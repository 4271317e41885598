// Emulation prevention (H.264 §7.4.1): inside a NAL unit, 00 00 followed by a byte ≤ 03 never
// appears; an encoder inserts 03 after such a 00 00. End-to-end encryption needs it for bytes
// that are not H.264 at all: ciphertext carried inside a NAL unit must not contain a start code,
// or a packetizer (ours, a browser's) would cut the frame there.

extension H264 {
    /// The emulation prevention byte.
    static let emulationPreventionByte: UInt8 = 0x03

    /// Escapes `buffer[from...]` in place: inserts 03 after every 00 00 that a byte ≤ 03 follows,
    /// and after a final 00 00 (so the unit does not end in zero bytes that an Annex B reader
    /// takes for the next start code). Grows `buffer` within its capacity when it can (no
    /// allocation in the steady state).
    /// - Parameters:
    ///   - zeros: how many 00 bytes (0–2) come just before `from` in the same NAL unit.
    public static func escape(_ buffer: inout [UInt8], from: Int, zeros: Int = 0) {
        // First pass: how many bytes go in, over raw memory (one compare for the common byte > 03).
        var inserts = 0, run = min(zeros, 2)
        buffer.withUnsafeBufferPointer { bytes in
            guard let base = bytes.baseAddress else { return }
            var i = from
            let end = bytes.count
            while i < end {
                let byte = base[i]
                i += 1
                if byte > emulationPreventionByte { run = 0; continue }
                if run >= 2 { inserts += 1; run = 0 }
                run = byte == 0 ? run + 1 : 0
            }
        }
        let endsInZeros = run >= 2
        if endsInZeros { inserts += 1 }
        guard inserts > 0 else { return }
        // Second pass, from the end backwards, so each byte moves once.
        let oldCount = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: inserts))
        buffer.withUnsafeMutableBufferPointer { bytes in
            var write = bytes.count
            if endsInZeros { write -= 1; bytes[write] = emulationPreventionByte }
            // Walking backwards: the input before `read` is still untouched, so whether the
            // forward pass escapes a byte can be read from the zeros before it.
            var read = oldCount
            var pending = inserts - (endsInZeros ? 1 : 0)
            while pending > 0 {
                read -= 1
                write -= 1
                bytes[write] = bytes[read]
                if bytes[read] <= emulationPreventionByte, Self.needsEscape(bytes, at: read, from: from, zeros: zeros) {
                    write -= 1
                    bytes[write] = emulationPreventionByte
                    pending -= 1
                }
            }
        }
    }

    /// Whether the forward pass inserts 03 before `bytes[index]` (a byte ≤ 03): its zero counter,
    /// after the run of zeros just before `index` (with the `zeros` before `from`), is 2.
    private static func needsEscape(_ bytes: UnsafeMutableBufferPointer<UInt8>, at index: Int, from: Int, zeros: Int) -> Bool {
        var count = 0, i = index - 1
        while i >= from, bytes[i] == 0 { count += 1; i -= 1 }
        if i < from { count += min(zeros, 2) }
        // The counter resets at each escape, and a zero is ≤ 03: after n zeros it holds
        // 1, 2, 1, 2, … (an escape went before the 3rd, 5th, … zero).
        return count > 0 && (count - 1) % 2 == 1
    }

    /// Appends `escaped` without its emulation prevention bytes (every 03 that follows 00 00) to `out`.
    /// - Parameters:
    ///   - zeros: how many 00 bytes (0–2) come just before `escaped` in the same NAL unit.
    /// Finds the 03s over raw memory and copies the runs between them whole.
    public static func unescape(_ escaped: UnsafeRawBufferPointer, zeros: Int = 0, appendingTo out: inout [UInt8]) {
        var run = min(zeros, 2), copied = 0, i = 0
        let end = escaped.count
        while i < end {
            let byte = escaped[i]
            i += 1
            if byte > emulationPreventionByte { run = 0; continue }
            if run >= 2, byte == emulationPreventionByte {
                out.append(contentsOf: UnsafeRawBufferPointer(rebasing: escaped[copied ..< i - 1]))
                copied = i
                run = 0
                continue
            }
            run = byte == 0 ? run + 1 : 0
        }
        out.append(contentsOf: UnsafeRawBufferPointer(rebasing: escaped[copied ..< end]))
    }
}
