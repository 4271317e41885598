// The ring mechanics behind `VideoJitterBuffer`: examining the frame at the head, taking it out, and
// skipping over frames that can no longer be completed.

import RTCWire

extension VideoJitterBuffer {
    /// The state of the frame starting at a sequence number.
    enum HeadState {
        /// All packets from the start through `last` (the marker) are present.
        case complete(last: UInt16)
        /// A packet is still missing.
        case incomplete
        /// The packet there is not a frame start, or the frame is malformed (timestamp change before the marker).
        case broken
    }

    @inline(__always)
    func slotIndex(_ sequence: UInt16) -> Int { Int(sequence) % configuration.capacity }

    func packet(_ sequence: UInt16) -> Packet? {
        guard let packet = slots[slotIndex(sequence)], packet.sequenceNumber == sequence else { return nil }
        return packet
    }

    func examineHead(_ start: UInt16) -> HeadState {
        guard let first = packet(start) else { return .incomplete }
        guard first.isFrameStart else { return .broken }
        var sequence = start
        while true {
            guard let current = packet(sequence) else { return .incomplete }
            guard current.timestamp == first.timestamp else { return .broken }
            if current.marker { return .complete(last: sequence) }
            guard SequenceNumber.isNewer(highest, than: sequence) else { return .incomplete }
            sequence &+= 1
        }
    }

    /// Removes the frame's packets from the ring and joins their data: VP8 or VP9 data without the
    /// descriptors (for VP9, the frames of every spatial layer of the picture), H.264 payloads
    /// depacketized into one Annex B access unit, or AV1 payloads into one temporal unit (nil when
    /// one of them is malformed).
    mutating func takeFrame(from start: UInt16, to last: UInt16) -> DepacketizedVideoFrame? {
        let first = packet(start)
        switch configuration.codec {
        case .vp8, .vp9:
            var data: [UInt8] = []
            var layerFrameStarts: [Int] = []
            var sequence = start
            while true {
                if let current = packet(sequence) {
                    // VP9's B bit (RFC 9628 §4.2) after the first layer frame: another layer frame begins.
                    if configuration.codec == .vp9, !data.isEmpty, current.payload[0] & 0x08 != 0 { layerFrameStarts.append(data.count) }
                    data.append(contentsOf: current.payload[current.dataOffset...])
                }
                remove(sequence)
                if sequence == last { break }
                sequence &+= 1
            }
            advanceHead(to: last &+ 1)
            if configuration.codec == .vp8 {
                return DepacketizedVideoFrame.assemble(data: data, rtpTimestamp: first?.timestamp ?? 0,
                                                       pictureID: first?.pictureID, first: start, last: last)
            }
            // Every layer frame of the picture, in order: libvpx decodes them one after another.
            var frame = DepacketizedVideoFrame(data: data, rtpTimestamp: first?.timestamp ?? 0, isKeyFrame: first?.isKeyFrame ?? false,
                                               pictureID: first?.pictureID, firstSequenceNumber: start, lastSequenceNumber: last)
            frame.layerFrameStarts = layerFrameStarts
            return frame
        case .h264:
            return depacketize(H264Depacketizer.self, from: start, to: last, timestamp: first?.timestamp ?? 0, key: false)
        case .av1:
            // A key frame by N, or by the sequence header that starts it (`insert`).
            return depacketize(AV1Depacketizer.self, from: start, to: last, timestamp: first?.timestamp ?? 0,
                               key: first?.isKeyFrame ?? false)
        }
    }

    /// Takes the frame's payloads out through a codec's depacketizer (H.264 into Annex B, AV1 into
    /// OBUs with their sizes); nil when one of them is malformed or the last leaves a unit open.
    /// The frame is a key frame when the depacketizer saw one or `key` says so.
    private mutating func depacketize<D: FrameDepacketizer>(_: D.Type, from start: UInt16, to last: UInt16,
                                                            timestamp: UInt32, key: Bool) -> DepacketizedVideoFrame? {
        var data: [UInt8] = []
        var depacketizer = D()
        var malformed = false
        var sequence = start
        while true {
            if !malformed, let current = packet(sequence) {
                do {
                    try current.payload.withUnsafeBytes { try depacketizer.append($0, to: &data) }
                } catch {
                    malformed = true
                }
            }
            remove(sequence)
            if sequence == last { break }
            sequence &+= 1
        }
        advanceHead(to: last &+ 1)
        guard !malformed, !depacketizer.inFragment, !data.isEmpty else { return nil }
        return DepacketizedVideoFrame(data: data, rtpTimestamp: timestamp, isKeyFrame: key || depacketizer.hasKeyFrame,
                                      pictureID: nil, firstSequenceNumber: start, lastSequenceNumber: last)
    }

    /// Gives up everything from `start` to the next buffered frame start, and asks for a key frame.
    mutating func skipToNextFrameStart(after start: UInt16) {
        var sequence = start &+ 1
        while SequenceNumber.distance(from: sequence, to: highest) >= 0 {
            if let candidate = packet(sequence), candidate.isFrameStart { break }
            sequence &+= 1
        }
        discard(from: start, upTo: sequence)
        needsKeyFrame = true
    }

    /// Drops every slot in `start ..< end`, counting missing ones as lost, and moves the head to `end`.
    mutating func discard(from start: UInt16, upTo end: UInt16) {
        var sequence = start
        while sequence != end {
            if packet(sequence) == nil { statistics.lostPackets += 1 }
            remove(sequence)
            sequence &+= 1
        }
        advanceHead(to: end)
    }

    mutating func remove(_ sequence: UInt16) {
        let index = slotIndex(sequence)
        if slots[index]?.sequenceNumber == sequence {
            slots[index] = nil
            packetCount -= 1
        }
    }

    mutating func advanceHead(to sequence: UInt16) {
        head = sequence
        losses.forget(before: sequence)
        hasAdvanced = true
        blockedSinceUs = nil
        if let key = newestKeyFrameStart, SequenceNumber.isNewer(sequence, than: key) { newestKeyFrameStart = nil }
        // Past everything received: the window is empty, so the next packet defines where it continues.
        if SequenceNumber.isNewer(sequence, than: highest) { highest = sequence &- 1 }
    }

    mutating func reset(at sequence: UInt16) {
        for index in slots.indices { slots[index] = nil }
        losses.reset()
        packetCount = 0
        head = sequence
        highest = sequence
        blockedSinceUs = nil
        newestKeyFrameStart = nil
        needsKeyFrame = true
        hasAdvanced = false
        statistics.resets += 1
    }
}
