/// One encoded frame as end-to-end encryption carries it (docs/e2ee.md, "Frame format"): the first
/// bytes that the SFU and the receiver's depacketizer read stay in the clear, the rest is an SFrame
/// ciphertext (RFC 9605) that authenticates them too:
///
///     e2ee_frame = clear ‖ SFrame header ‖ AEAD(key, nonce, aad = header ‖ clear, rest)
///
/// What stays clear depends on the codec and is read from the clear bytes themselves, so a
/// receiver needs nothing else to find the SFrame header:
///
/// - VP8 (RFC 6386 §9.1): the 3-byte frame tag, and on a key frame (P bit clear) the 7 bytes after
///   it (start code, width, height): 10 bytes. The SFU tells key frames by them and the browser's
///   packetizer needs them; RFC 9605 §9.2 allows leaving such bytes in the clear.
/// - Opus (RFC 6716 §3.1): the TOC byte (mode, bandwidth, frame count).
///
/// The same layout is what the web SDK's encoded transform writes, byte for byte.
public enum E2EEFrame {
    /// The codecs whose frames can be encrypted. H.264 is not among them yet: its frames are
    /// Annex B NAL units that packetizers split at start codes, which ciphertext can contain.
    public enum Codec: String, Sendable, CaseIterable {
        case vp8, opus
    }

    /// How many leading bytes of `frame` stay in the clear; nil when the frame is too short for
    /// its codec's clear part (not a frame that codec makes).
    public static func clearLength(_ codec: Codec, frame: UnsafeRawBufferPointer) -> Int? {
        guard let first = frame.first else { return nil }
        let length: Int
        switch codec {
        case .vp8: length = first & 0x01 == 0 ? 10 : 3
        case .opus: length = 1
        }
        return frame.count >= length ? length : nil
    }

    /// Appends the encrypted form of `frame` to `out`.
    @discardableResult
    public static func encrypt(_ frame: UnsafeRawBufferPointer, codec: Codec, with encryptor: SFrameEncryptor,
                               appendingTo out: inout [UInt8]) throws(SFrameError) -> SFrameHeader {
        guard let clear = clearLength(codec, frame: frame) else { throw .malformedFrame }
        let prefix = UnsafeRawBufferPointer(rebasing: frame[..<clear])
        out.append(contentsOf: prefix)
        return try encryptor.encrypt(UnsafeRawBufferPointer(rebasing: frame[clear...]), metadata: prefix, appendingTo: &out)
    }

    /// Appends the frame that `encrypted` carries (clear bytes and plaintext) to `out`.
    @discardableResult
    public static func decrypt(_ encrypted: UnsafeRawBufferPointer, codec: Codec, with decryptor: SFrameDecryptor,
                               appendingTo out: inout [UInt8]) throws(SFrameError) -> SFrameHeader {
        guard let clear = clearLength(codec, frame: encrypted), encrypted.count > clear else { throw .malformedFrame }
        let prefix = UnsafeRawBufferPointer(rebasing: encrypted[..<clear])
        let start = out.count
        out.append(contentsOf: prefix)
        do {
            return try decryptor.decrypt(UnsafeRawBufferPointer(rebasing: encrypted[clear...]), metadata: prefix, appendingTo: &out)
        } catch {
            out.removeSubrange(start...)
            throw error
        }
    }
}
