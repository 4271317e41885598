import RTCWire

// The server's pacer (docs/network.md, "Pacing"): what a subscriber transport sends leaves at the
// transport's bandwidth estimate, audio and RTCP first. `TransportPacer` is the model; here the
// transport sends through it, and the worker's 10 ms tick drains what waits
// (`Router.drainPacers`).
//
// A packet that waits is written (rewritten, plain RTP) into a slot of the worker's
// `PacedPacketPool`; when it leaves it is copied into the port's send queue and SRTP-protected
// there, with its transport-wide sequence number and abs-send-time written at that moment: the
// numbers go out in sending order and the send history holds the real send time, so the pacer's
// own queue never reads as queueing delay in transport-cc.

/// How a packet given to `MediaTransport.sendMedia` went.
enum PacedSendResult: Equatable {
    /// Into the port's send queue now, `length` bytes: the caller records its transport-wide number.
    case sent(length: Int)
    /// Into the pacer's queue, `length` bytes: its transport-wide number is given when it leaves.
    case queued(length: Int)
    /// Not sent (not connected, or it did not fit).
    case failed
}

extension MediaTransport {
    /// Sends one RTP packet that `write` puts into a slot. `paced`: it may wait in the pacer
    /// (video, retransmissions, padding); otherwise it leaves now (audio) and its bytes are taken
    /// from the pacer's budget. `write` may be called twice: once into a pacer slot and, when it
    /// returns nil there (too large), again into the send queue; it must return nil before any
    /// side effect. Allocation-free.
    @inline(__always)
    func sendMedia(paced: Bool, stampedAt stamp: Int64, extensionIDs: HeaderExtensionIDs, now: Int64,
                   _ write: (UnsafeMutableRawBufferPointer) -> Int?) -> PacedSendResult {
        if pacer.rate > 0 {
            pacer.refill(now: now)
            if paced, pacer.mustQueue, let length = enqueue(stampedAt: stamp, extensionIDs: extensionIDs, now: now, write) {
                return .queued(length: length)
            }
        }
        var length = 0
        let sent = sink.sendRTP(stampedAt: stamp) { slot in
            let written = write(slot)
            length = written ?? 0
            return written
        }
        guard sent else { return .failed }
        pacer.spend(length)
        return .sent(length: length)
    }

    /// Records a packet `sendMedia` took: one sent now used `transportSequence` (when `numbered`);
    /// a queued one gets its number when it leaves. Returns its length, nil when it failed.
    @inline(__always)
    func record(_ result: PacedSendResult, transportSequence sent: UInt16, numbered: Bool, now: Int64) -> Int? {
        switch result {
        case .failed: return nil
        case .queued(let length): return length
        case .sent(let length):
            if numbered { didSend(transportSequence: sent, size: length, now: now) }
            return length
        }
    }

    /// Bytes of RTCP that left unpaced (they count against the pacer's budget).
    @inline(__always)
    func didSendUnpaced(bytes: Int) {
        pacer.spend(bytes)
    }

    /// Writes a packet into a pacer slot and queues it; nil when the ring or the pool is full or
    /// it does not fit (the caller then sends it at once).
    private func enqueue(stampedAt stamp: Int64, extensionIDs: HeaderExtensionIDs, now: Int64,
                         _ write: (UnsafeMutableRawBufferPointer) -> Int?) -> Int? {
        guard !pacer.isFull, let slotIndex = router.pacedPackets.take() else {
            counters.pacerOverflows += 1
            return nil
        }
        let slot = router.pacedPackets.slot(slotIndex)
        guard let length = write(slot), length > 0 else {
            router.pacedPackets.give(slotIndex)
            return nil
        }
        // `write` ran (its side effects too): the packet is queued even if it did not parse.
        let view = try? RTPPacketView(UnsafeRawBufferPointer(rebasing: slot[0 ..< length]))
        func offset(_ id: UInt8, _ size: Int) -> Int16 {
            guard id != 0, let range = view?.extensionValueRange(id: id), range.count == size else { return -1 }
            return Int16(range.lowerBound)
        }
        pacer.push(.init(slot: slotIndex, length: Int32(length), stamp: stamp,
                         transportSequenceOffset: offset(extensionIDs.transportWideCC, 2),
                         absSendTimeOffset: offset(extensionIDs.absSendTime, 3), queuedAt: now))
        counters.pacedPackets += 1
        if !isBacklogged {
            isBacklogged = true
            router.didBacklog(self)
        }
        return length
    }

    /// Sends what the pacer's budget allows of what waits (from the worker's tick).
    /// - Returns: whether packets still wait.
    func drainPacer(now: Int64) -> Bool {
        pacer.refill(now: now)
        while pacer.overflow {
            router.pacedPackets.give(pacer.popFront().slot)
            counters.pacerDrops += 1
        }
        while pacer.mayRelease {
            let entry = pacer.popFront()
            let slot = router.pacedPackets.slot(entry.slot)
            let length = Int(entry.length)
            let sequence = transportSequence
            let sent = !closed && sink.sendRTP(stampedAt: entry.stamp) { out in
                guard length <= out.count, let target = out.baseAddress, let source = slot.baseAddress else { return nil }
                target.copyMemory(from: source, byteCount: length)
                if entry.transportSequenceOffset >= 0 {
                    target.storeBytes(of: sequence.bigEndian, toByteOffset: Int(entry.transportSequenceOffset), as: UInt16.self)
                }
                if entry.absSendTimeOffset >= 0 {
                    let value = RTPForwardWriter.absSendTime(micros: now)
                    let at = Int(entry.absSendTimeOffset)
                    out[at] = UInt8(truncatingIfNeeded: value >> 16)
                    out[at + 1] = UInt8(truncatingIfNeeded: value >> 8)
                    out[at + 2] = UInt8(truncatingIfNeeded: value)
                }
                return length
            }
            router.pacedPackets.give(entry.slot)
            if sent {
                if entry.transportSequenceOffset >= 0 { didSend(transportSequence: sequence, size: length, now: now) }
                pacer.spend(length)
                counters.pacerDelayMax = max(counters.pacerDelayMax, now - entry.queuedAt)
            } else {
                counters.pacerSendFailures += 1
            }
        }
        if pacer.isEmpty { isBacklogged = false }
        return !pacer.isEmpty
    }

    /// Frees what waits (the transport closes).
    func releasePacer() {
        while !pacer.isEmpty { router.pacedPackets.give(pacer.popFront().slot) }
        isBacklogged = false
    }

    /// Sets the pacing rate from the bandwidth estimate (from `allocateLayers`, and after every
    /// transport-cc feedback): the estimate the allocator budgets with, or the probe's rate while
    /// a probe runs (its padding must leave).
    func updatePacingRate(estimate: Int?, probeRate: Int?) {
        pacer.congested = firstFeedbackTime != .min && bandwidth.overusing
        guard let estimate else {
            pacer.rate = 0
            return
        }
        pacer.rate = max(estimate, probeRate ?? 0)
    }
}
