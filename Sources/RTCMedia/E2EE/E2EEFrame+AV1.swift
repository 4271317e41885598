// The E2EE layout of an AV1 temporal unit (docs/e2ee.md, "Frame format"). An AV1 packetizer
// (ours, a browser's) parses the frame into OBUs by their headers and obu_size fields, drops the
// temporal delimiter, tile list and padding OBUs, and sends each OBU without its size (av1-rtp-spec
// §5); the depacketizer writes every OBU back with a shortest obu_size. So the OBU headers and
// sizes must stay a valid OBU sequence, and what is authenticated must be what both ends see
// alike. Each OBU keeps its header in the clear, the OBU payloads are the SFrame plaintext, and
// the SFrame header and tag ride in the first and last OBU's payloads:
//
//     e2ee_frame     = obu'_1 ‖ … ‖ obu'_n                  (the OBUs a packetizer sends)
//     obu'_i         = OBU header (S set) ‖ [extension] ‖ leb128(|s_i|) ‖ s_i
//     s_1 ‖ … ‖ s_n  = SFrame header ‖ AEAD(key, nonce, aad = SFrame header ‖ m_1 ‖ … ‖ m_n, p_1 ‖ … ‖ p_n)
//     m_i            = OBU header (S cleared) ‖ [extension] ‖ leb128(|p_i|)
//
// where p_i is OBU i's payload, s_1 starts with the SFrame header and s_n ends with the tag. The
// metadata m authenticates the OBU types, extensions (temporal and spatial ids) and sizes in a
// form no packetizer changes. The SFU reads nothing of the payload: it takes layers and key frames
// from the Dependency Descriptor header extension and the aggregation header's N bit, which the
// packetizer sets from the clear sequence-header OBU type.

extension E2EEFrame {
    /// Appends the encrypted form of the AV1 temporal unit `frame` (low-overhead format, every OBU
    /// with obu_size) to `out`.
    static func encryptAV1(_ frame: UnsafeRawBufferPointer, with encryptor: SFrameEncryptor,
                           appendingTo out: inout [UInt8]) throws(SFrameError) -> SFrameHeader {
        let start = out.count
        do {
            let count = try appendAV1Metadata(frame, to: &out) { _, payload in payload.count }
            let metadataEnd = out.count
            try forEachSentOBU(frame) { _, payload in out.append(contentsOf: payload) }
            let plainEnd = out.count
            let header = try encryptor.encrypt(plaintextIn: metadataEnd..<plainEnd, metadataIn: start..<metadataEnd, appendingTo: &out)
            let sframeEnd = out.count
            appendOBUs(&out, metadata: start..<metadataEnd, count: count, payloads: plainEnd..<sframeEnd,
                       firstExtra: header.encodedLength, lastExtra: encryptor.key.suite.tagLength)
            out.removeSubrange(start..<sframeEnd)
            return header
        } catch {
            out.removeSubrange(start...)
            throw error
        }
    }

    /// Appends the temporal unit that the encrypted AV1 frame `encrypted` carries to `out`: the
    /// OBUs the sender sent, each with a shortest obu_size.
    static func decryptAV1(_ encrypted: UnsafeRawBufferPointer, with decryptor: SFrameDecryptor,
                           appendingTo out: inout [UInt8]) throws(SFrameError) -> SFrameHeader {
        let start = out.count
        do {
            var count = 0, headerLength = 0
            try forEachSentOBU(encrypted) { _, payload in
                if count == 0 { headerLength = try SFrameHeader.parse(payload).length }
                count += 1
            }
            guard count > 0 else { throw SFrameError.malformedFrame }
            let tagLength = decryptor.suite.tagLength
            _ = try appendAV1Metadata(encrypted, to: &out) { index, payload in
                let length = payload.count - (index == 0 ? headerLength : 0) - (index == count - 1 ? tagLength : 0)
                guard length >= 0 else { throw SFrameError.malformedFrame }
                return length
            }
            let metadataEnd = out.count
            try forEachSentOBU(encrypted) { _, payload in out.append(contentsOf: payload) }
            let sframeEnd = out.count
            let header = try decryptor.decrypt(sframeIn: metadataEnd..<sframeEnd, metadataIn: start..<metadataEnd, appendingTo: &out)
            let plainEnd = out.count
            appendOBUs(&out, metadata: start..<metadataEnd, count: count, payloads: sframeEnd..<plainEnd, firstExtra: 0, lastExtra: 0)
            out.removeSubrange(start..<plainEnd)
            return header
        } catch let error as SFrameError {
            out.removeSubrange(start...)
            throw error
        } catch {
            out.removeSubrange(start...)
            throw .malformedFrame
        }
    }

    // MARK: - Internals

    /// Calls `body` with the header bytes and payload of each OBU a packetizer sends (all but the
    /// temporal delimiter, tile list and padding, av1-rtp-spec §5).
    private static func forEachSentOBU(_ unit: UnsafeRawBufferPointer,
                                       _ body: (_ header: UnsafeRawBufferPointer, _ payload: UnsafeRawBufferPointer) throws -> Void)
        throws(SFrameError) {
        do {
            try AV1OBU.forEach(inTemporalUnit: unit) { header, payload in
                let type = AV1OBU.type(header[0])
                guard type != AV1OBU.temporalDelimiter, type != AV1OBU.tileList, type != AV1OBU.padding else { return }
                try body(header, payload)
            }
        } catch let error as SFrameError {
            throw error
        } catch {
            throw .malformedFrame
        }
    }

    /// Appends the metadata m_1 ‖ … ‖ m_n of the OBUs of `unit` (see the top of the file), with
    /// the plaintext payload length `length(index, payload)` gives; the number of OBUs.
    private static func appendAV1Metadata(_ unit: UnsafeRawBufferPointer, to out: inout [UInt8],
                                          length: (_ index: Int, _ payload: UnsafeRawBufferPointer) throws -> Int) throws(SFrameError) -> Int {
        var count = 0
        try forEachSentOBU(unit) { header, payload in
            let size = try length(count, payload)
            out.append(header[0] & ~0x02)
            if header.count > 1 { out.append(header[1]) }
            AV1OBU.appendLEB128(size, to: &out)
            count += 1
        }
        guard count > 0 else { throw .malformedFrame }
        return count
    }

    /// Calls `body` with where each OBU's header starts in `metadata`, its header length and its
    /// plaintext payload length (the metadata was written by `appendAV1Metadata`).
    private static func forEachMetadataEntry(_ buffer: UnsafeRawBufferPointer, _ metadata: Range<Int>,
                                             _ body: (_ header: Int, _ headerLength: Int, _ length: Int) -> Void) {
        var offset = metadata.lowerBound
        while offset < metadata.upperBound {
            let header = offset
            let headerLength = buffer[offset] & 0x04 != 0 ? 2 : 1
            offset += headerLength
            body(header, headerLength, AV1OBU.readLEB128(buffer, at: &offset)!)
        }
    }

    /// Appends the OBUs that `metadata` lists, each with its header (S set), its obu_size and its
    /// payload taken in turn from `payloads` (in `out`): the first OBU `firstExtra` bytes longer
    /// than the metadata says, the last one `lastExtra`.
    private static func appendOBUs(_ out: inout [UInt8], metadata: Range<Int>, count: Int, payloads: Range<Int>,
                                   firstExtra: Int, lastExtra: Int) {
        func obuSize(_ index: Int, _ length: Int) -> Int {
            length + (index == 0 ? firstExtra : 0) + (index == count - 1 ? lastExtra : 0)
        }
        var total = 0, index = 0
        out.withUnsafeBytes { buffer in
            forEachMetadataEntry(buffer, metadata) { _, headerLength, length in
                let size = obuSize(index, length)
                total += headerLength + AV1OBU.leb128Size(size) + size
                index += 1
            }
        }
        let at = out.count
        out.append(contentsOf: repeatElement(0, count: total))
        out.withUnsafeMutableBytes { buffer in
            var write = at, read = payloads.lowerBound
            index = 0
            forEachMetadataEntry(UnsafeRawBufferPointer(buffer), metadata) { header, headerLength, length in
                buffer[write] = buffer[header] | 0x02
                if headerLength == 2 { buffer[write + 1] = buffer[header + 1] }
                write += headerLength
                let payloadSize = obuSize(index, length)
                write += AV1OBU.writeLEB128(payloadSize, into: buffer, at: write)
                // The payloads lie before `at`: source and destination never overlap.
                buffer.baseAddress!.advanced(by: write).copyMemory(from: buffer.baseAddress!.advanced(by: read), byteCount: payloadSize)
                write += payloadSize
                read += payloadSize
                index += 1
            }
            precondition(read == payloads.upperBound, "AV1 payload sizes do not add up")
        }
    }
}
