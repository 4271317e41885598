import RTCTransport
import RTCWire
import SRTC
import Synchronization

/// One RTP stream a load publisher sends from an `EncodedLoop`: a frame's packets go out as one
/// burst when the frame is due (as an encoder's output would), stamped with the send time; NACKs
/// are answered by writing the packet again from the loop; a key-frame request (PLI/FIR) makes
/// the next frame the loop's key frame, as an encoder would. A scalable AV1 loop's packets carry
/// their Dependency Descriptors, frame numbers continued from pass to pass.
///
/// Everything but the counters runs on the publisher transport's I/O thread.
// @unchecked Sendable: everything but the Atomic counters is used only on the publisher transport's I/O thread.
package final class LoadStreamSender: @unchecked Sendable {
    /// What a sent packet was, to write it again for a NACK.
    private struct SentRecord {
        var sequence: UInt16
        var frame: Int32 = -1
        var packet: Int32 = 0
        var timestamp: UInt32 = 0
        var pictureID: UInt16 = 0
        var sendTime: UInt64 = 0
        /// Added to the loop's Dependency Descriptor frame numbers.
        var frameNumberBase: UInt16 = 0
    }

    let loop: EncodedLoop
    let ssrc: UInt32
    let payloadType: UInt8
    let stamp: SendTimeStamp
    /// Packets sent so far (first sends), readable from any thread.
    let packetsSent = Atomic<Int>(0)
    let bytesSent = Atomic<Int>(0)
    let retransmissions = Atomic<Int>(0)
    let nacksReceived = Atomic<Int>(0)
    let keyFrameRequests = Atomic<Int>(0)
    /// Packets not sent by `drop(_:every:)` (tests), readable from any thread.
    let dropped = Atomic<Int>(0)

    private var elements: [RTPHeaderWriter.Element]
    private let stampIndex: Int?
    /// Where the Dependency Descriptor goes in `elements` (a scalable AV1 loop with the extension negotiated).
    private let descriptorIndex: Int?
    private var frameNumberBase: UInt16 = 0
    private var sequence = UInt16.random(in: 0 ... .max)
    private let timestampBase = UInt32.random(in: 0 ... .max)
    private var pictureID = UInt16.random(in: 0 ... 0x7FFF)
    /// Frames sent since the start (drives the timestamp and the schedule).
    private var framesSent: Int64 = 0
    /// The next frame of the loop to send.
    private var loopIndex = 0
    private var lastKeyFrameRequest: Int64 = .min
    private var history: [SentRecord]
    private var octets: UInt32 = 0
    /// The last frame's RTP timestamp and NTP send time (for sender reports).
    private var lastFrame: (timestamp: UInt32, sendTime: UInt64)?
    /// `drop(_:every:)`'s state: packets still to drop, the spacing, packets until the next drop.
    private var dropsLeft = 0, dropSpacing = 1, untilDrop = 0

    /// - Parameters:
    ///   - headerElements: mid, rid and audio-level elements (ids as negotiated).
    ///   - descriptorID: the Dependency Descriptor's negotiated id (used with a loop that has descriptors).
    init(loop: EncodedLoop, ssrc: UInt32, payloadType: UInt8, headerElements: [RTPHeaderWriter.Element], stamp: SendTimeStamp,
         descriptorID: UInt8? = nil) {
        self.loop = loop
        self.ssrc = ssrc
        self.payloadType = payloadType
        self.stamp = stamp
        var elements = headerElements
        if case .absCaptureTime(let id) = stamp, let element = RTPHeaderWriter.Element(id: id, bytes: [UInt8](repeating: 0, count: 8)) {
            elements.append(element)
            stampIndex = elements.count - 1
        } else {
            stampIndex = nil
        }
        if loop.descriptorFrames > 0, let descriptorID, let placeholder = RTPHeaderWriter.Element(id: descriptorID, bytes: [0, 0, 0]) {
            elements.append(placeholder)
            descriptorIndex = elements.count - 1
        } else {
            descriptorIndex = nil
        }
        self.elements = elements
        history = [SentRecord](repeating: SentRecord(sequence: 0), count: 1024)
    }

    /// Tests: of the next `count × spacing` packets, every `spacing`-th is not sent (its sequence
    /// number is skipped, and a NACK for it finds nothing), as if lost before the server. I/O thread.
    func drop(_ count: Int, every spacing: Int) {
        dropsLeft = count
        dropSpacing = max(1, spacing)
        untilDrop = dropSpacing
    }

    /// When the next frame is due, µs after the publisher's start.
    var nextDue: Int64 { framesSent * loop.frameInterval }

    // MARK: - Sending (I/O thread)

    /// Sends every frame due by `elapsed` µs after the start (catching up after a late wake-up).
    func sendDue(elapsed: Int64, on transport: PeerTransport) {
        while nextDue <= elapsed {
            sendFrame(on: transport)
        }
    }

    private func sendFrame(on transport: PeerTransport) {
        let frame = loop.frames[loopIndex]
        let timestamp = timestampBase &+ UInt32(truncatingIfNeeded: framesSent) &* loop.ticksPerFrame
        let now = SendTimeStamp.now()
        // By index: `enumerated()` over the frames' arrays ran unspecialized (6 % of a counting-only run's generator).
        for index in frame.payloads.indices {
            let payload = frame.payloads[index]
            if dropsLeft > 0 {
                untilDrop -= 1
                if untilDrop == 0 {
                    // Lost on the way: its number is used, nothing is sent or kept to resend.
                    untilDrop = dropSpacing
                    dropsLeft -= 1
                    dropped.add(1, ordering: .relaxed)
                    sequence &+= 1
                    continue
                }
            }
            let record = SentRecord(sequence: sequence, frame: Int32(loopIndex), packet: Int32(index), timestamp: timestamp,
                                    pictureID: pictureID, sendTime: now, frameNumberBase: frameNumberBase)
            if let length = write(record, marker: index == frame.payloads.count - 1, payload: payload,
                                  descriptor: index < frame.descriptors.count ? frame.descriptors[index] : nil, on: transport) {
                packetsSent.add(1, ordering: .relaxed)
                bytesSent.add(length, ordering: .relaxed)
                octets &+= UInt32(truncatingIfNeeded: payload.count)
            }
            history[Int(sequence) % history.count] = record
            sequence &+= 1
        }
        lastFrame = (timestamp, now)
        framesSent += 1
        loopIndex = (loopIndex + 1) % loop.frames.count
        if loopIndex == 0 { frameNumberBase &+= UInt16(truncatingIfNeeded: loop.descriptorFrames) }
        if loop.isVP8 { pictureID = (pictureID &+ 1) & 0x7FFF }
    }

    /// Writes one packet into the transport's send queue; returns its length.
    private func write(_ record: SentRecord, marker: Bool, payload: [UInt8], descriptor: [UInt8]?, on transport: PeerTransport) -> Int? {
        if let descriptorIndex, let descriptor, descriptor.count >= 3,
           var element = RTPHeaderWriter.Element(id: elements[descriptorIndex].id, bytes: descriptor) {
            // frame_number, bytes 1–2 (§A.8.1), continued from the passes before.
            let number = (UInt16(descriptor[1]) << 8 | UInt16(descriptor[2])) &+ record.frameNumberBase
            element.setByte(1, UInt8(number >> 8))
            element.setByte(2, UInt8(number & 0xFF))
            elements[descriptorIndex] = element
        }
        if let stampIndex {
            // The send time's 8 bytes set in place, big-endian: a new element per packet went
            // through the generic initializer (9 % of a counting-only run's generator).
            var time = record.sendTime
            for byte in stride(from: 7, through: 0, by: -1) {
                elements[stampIndex].setByte(byte, UInt8(truncatingIfNeeded: time))
                time >>= 8
            }
        }
        let padding = stamp == .padding ? SendTimeStamp.paddingLength : 0
        var length = 0
        let headerElements = elements
        let sent = transport.sendRTP { slot in
            let header = RTPHeaderWriter.headerLength(headerElements)
            let total = header + payload.count + padding
            guard total <= slot.count else { return nil }
            _ = RTPHeaderWriter.write(into: slot, marker: marker, payloadType: payloadType, sequenceNumber: record.sequence,
                                      timestamp: record.timestamp, ssrc: ssrc, elements: headerElements)
            payload.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: slot[header ..< header + payload.count]).copyMemory(from: $0) }
            if loop.isVP8, payload.count >= 4 {
                // RFC 7741 §4.2: M=1 and the 15-bit PictureID in the descriptor's 3rd and 4th bytes.
                slot[header + 2] = 0x80 | UInt8(record.pictureID >> 8)
                slot[header + 3] = UInt8(record.pictureID & 0xFF)
            }
            if padding > 0 {
                slot[0] |= 0x20
                withUnsafeBytes(of: record.sendTime.bigEndian) { time in
                    UnsafeMutableRawBufferPointer(rebasing: slot[header + payload.count ..< header + payload.count + 8]).copyMemory(from: time)
                }
                slot[total - 1] = UInt8(padding)
            }
            length = total
            return total
        }
        return sent ? length : nil
    }

    // MARK: - Feedback (I/O thread)

    /// Resends the listed packets still in the history, exactly as first sent (RFC 4585 §6.2.1).
    func retransmit(_ sequences: [UInt16], on transport: PeerTransport) {
        nacksReceived.add(1, ordering: .relaxed)
        for wanted in sequences {
            let record = history[Int(wanted) % history.count]
            guard record.sequence == wanted, record.frame >= 0 else { continue }
            let frame = loop.frames[Int(record.frame)]
            let payload = frame.payloads[Int(record.packet)]
            let descriptor = Int(record.packet) < frame.descriptors.count ? frame.descriptors[Int(record.packet)] : nil
            if write(record, marker: Int(record.packet) == frame.payloads.count - 1, payload: payload, descriptor: descriptor,
                     on: transport) != nil {
                retransmissions.add(1, ordering: .relaxed)
            }
        }
    }

    /// A PLI or FIR: the next frame is the loop's key frame (at most every 250 ms, as encoders
    /// limit forced key frames).
    func keyFrameRequested(now: Int64) {
        keyFrameRequests.add(1, ordering: .relaxed)
        guard loop.isVideo, lastKeyFrameRequest == .min || now - lastKeyFrameRequest >= 250_000 else { return }
        lastKeyFrameRequest = now
        // The rest of this pass's frame numbers are skipped: the key frame starts every chain anew.
        if loopIndex != 0 { frameNumberBase &+= UInt16(truncatingIfNeeded: loop.descriptorFrames) }
        loopIndex = 0
    }

    /// An RTCP sender report for this stream (RFC 3550 §6.4.1), once something was sent.
    func senderReport() -> SenderReport? {
        guard let lastFrame else { return nil }
        let now = SendTimeStamp.now()
        let elapsed = max(0, SendTimeStamp.micros(from: lastFrame.sendTime, to: now))
        let rtp = lastFrame.timestamp &+ UInt32(truncatingIfNeeded: elapsed * Int64(loop.clockRate) / 1_000_000)
        return SenderReport(ssrc: ssrc, ntpTime: NTPTime(rawValue: now), rtpTime: rtp,
                            packetCount: UInt32(truncatingIfNeeded: packetsSent.load(ordering: .relaxed)), octetCount: octets)
    }
}
