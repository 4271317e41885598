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
/// - VP9: nothing. Its RTP payload descriptor (RFC 9628 §4.2), which the SFU reads for key
///   frames and layers, is written by the packetizer from the encoder's frame info, not from the
///   bitstream, so the whole frame is encrypted.
/// - H.264: the NAL units before the first slice and that slice's header up to its PPS id, with
///   the ciphertext escaped into the slice's NAL unit (`E2EEFrame+H264.swift`).
/// - AV1: every OBU header and size, the OBU payloads encrypted, the SFrame header and tag inside
///   the first and last OBU (`E2EEFrame+AV1.swift`).
///
/// The same layout is what the web SDK's encoded transform writes, byte for byte.
public enum E2EEFrame {
    /// The codecs whose frames can be encrypted.
    public enum Codec: String, Sendable, CaseIterable {
        case vp8, opus, vp9, h264, av1
    }

    /// How many leading bytes of `frame` stay in the clear; nil when the frame is too short for
    /// its codec's clear part (not a frame that codec makes), or for H.264 and AV1, whose clear
    /// bytes are not one prefix of the frame (`E2EEFrame+H264.swift`, `E2EEFrame+AV1.swift`).
    public static func clearLength(_ codec: Codec, frame: UnsafeRawBufferPointer) -> Int? {
        guard let first = frame.first else { return nil }
        let length: Int
        switch codec {
        case .vp8: length = first & 0x01 == 0 ? 10 : 3
        case .opus: length = 1
        case .vp9: length = 0
        case .h264, .av1: return nil
        }
        return frame.count >= length ? length : nil
    }

    /// Appends the encrypted form of `frame` to `out`.
    @discardableResult
    public static func encrypt(_ frame: UnsafeRawBufferPointer, codec: Codec, with encryptor: SFrameEncryptor,
                               appendingTo out: inout [UInt8]) throws(SFrameError) -> SFrameHeader {
        if codec == .h264 { return try encryptH264(frame, with: encryptor, appendingTo: &out) }
        if codec == .av1 { return try encryptAV1(frame, with: encryptor, appendingTo: &out) }
        guard let clear = clearLength(codec, frame: frame) else { throw .malformedFrame }
        let prefix = UnsafeRawBufferPointer(rebasing: frame[..<clear])
        out.append(contentsOf: prefix)
        return try encryptor.encrypt(UnsafeRawBufferPointer(rebasing: frame[clear...]), metadata: prefix, appendingTo: &out)
    }

    /// Appends the frame that `encrypted` carries (clear bytes and plaintext) to `out`.
    @discardableResult
    public static func decrypt(_ encrypted: UnsafeRawBufferPointer, codec: Codec, with decryptor: SFrameDecryptor,
                               appendingTo out: inout [UInt8]) throws(SFrameError) -> SFrameHeader {
        if codec == .h264 { return try decryptH264(encrypted, with: decryptor, appendingTo: &out) }
        if codec == .av1 { return try decryptAV1(encrypted, with: decryptor, appendingTo: &out) }
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

extension E2EEFrame.Codec {
    /// The E2EE layout of a video codec's frames.
    public init(_ codec: VideoCodec) {
        switch codec {
        case .vp8: self = .vp8
        case .vp9: self = .vp9
        case .h264: self = .h264
        case .av1: self = .av1
        }
    }
}
