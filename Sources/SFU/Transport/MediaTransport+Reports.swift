import RTCWire

// Outgoing RTCP and periodic work: NACKs and key-frame requests toward the publisher,
// transport-cc feedback and receiver reports for what we receive, sender reports for what we send.

extension MediaTransport {
    /// How often each transport re-chooses its consumers' simulcast layers, µs.
    static let allocationInterval: Int64 = 500_000

    /// Runs the transport's timers on the I/O thread, from `Router.tick` (~20 ms) once `nextTick`
    /// has come, and sets `nextTick` again.
    func tick(now: Int64) {
        guard !closed, state == .connected else {
            nextTick = .max  // until the state changes (`state` wakes the timers)
            return
        }
        for producer in producers where !producer.closed {
            for stream in producer.streams {
                if stream.keyFrameRequests.poll(now: now), !sendKeyFrameRequest(for: stream) {
                    stream.keyFrameRequests.postpone()
                }
                guard stream.nack != nil, !(stream.nack!.entries.isEmpty) else { continue }
                sendNacks(for: stream, now: now)
            }
        }
        if !arrivals.isEmpty, now - lastFeedbackTime >= router.transportFeedbackInterval {
            sendTransportFeedback(now: now)
        }
        for consumer in consumers { consumer.tick(now: now) }
        if now - lastReportTime >= router.reportInterval {
            lastReportTime = now
            sendReports(now: now)
        }
        if now - lastAllocationTime >= Self.allocationInterval {
            lastAllocationTime = now
            for producer in producers { for stream in producer.streams { stream.updateBitrate(now: now) } }
            allocateLayers(now: now, cause: .bandwidth)
        } else if isProbing {
            allocateLayers(now: now, cause: .bandwidth)  // a probe stops at once on loss or delay
        }
        if isProbing { sendProbePackets(now: now) }
        nextTick = nextTimer()
    }

    /// When the timers next have work. A publishing transport looks on every tick: NACKs and
    /// key-frame requests toward its publisher appear with any packet, and its transport-cc
    /// feedback goes out every 50 ms. One that only subscribes (most of them: 50 of 51 at 1→50)
    /// has work at its next report, layer allocation or key-frame re-ask, and nothing in
    /// between unless a control call or its consumer's state brings some (`wakeTimers`): checking
    /// it every 20 ms cost a call, its checks and a retain on the side-table path (its
    /// `PeerTransport` holds it weakly) 50 times a second per subscriber.
    private func nextTimer() -> Int64 {
        if !producers.isEmpty || incomingTWCCID != 0 || !arrivals.isEmpty || isProbing { return .min }
        var due = min(lastReportTime + router.reportInterval, lastAllocationTime + Self.allocationInterval)
        for consumer in consumers {
            if let ask = consumer.nextKeyFrameAsk { due = min(due, ask) }
        }
        return due
    }

    /// Something gave the timers work before `nextTick`: run them on the next tick.
    func wakeTimers() { nextTick = .min }

    // MARK: - Toward the publisher

    /// PLI (RFC 4585 §6.3.1), or FIR (RFC 5104 §4.3.1) when only FIR was negotiated.
    /// - Returns: false when the stream's SSRC is not known yet.
    @discardableResult
    func sendKeyFrameRequest(for stream: ProducerStream) -> Bool {
        guard let ssrc = stream.ssrc else { return false }
        let feedback = stream.producer.feedback
        let packet: RTCPPacket
        if feedback.fir && !feedback.pli {
            let sequence = firSequence[ssrc, default: 0] &+ 1
            firSequence[ssrc] = sequence
            packet = .fullIntraRequest(FullIntraRequest(senderSSRC: rtcpSSRC, entries: [.init(ssrc: ssrc, sequenceNumber: sequence)]))
            counters.firsSent += 1
        } else {
            packet = .pictureLossIndication(PictureLossIndication(senderSSRC: rtcpSSRC, mediaSSRC: ssrc))
            counters.plisSent += 1
        }
        send([packet])
        return true
    }

    private func sendNacks(for stream: ProducerStream, now: Int64) {
        guard let ssrc = stream.ssrc else { return }
        dueNacks.removeAll(keepingCapacity: true)
        let rtt = router.roundTripTime(of: participant) ?? configuration.defaultRoundTripTime
        let exhausted = stream.nack!.poll(now: now, rtt: rtt, into: &dueNacks)
        if !dueNacks.isEmpty {
            send([.nack(TransportLayerNack(senderSSRC: rtcpSSRC, mediaSSRC: ssrc, lost: dueNacks))])
            counters.nacksSent += 1
        }
        if exhausted { stream.producer.requestKeyFrame(layer: stream.index, now: now) }
    }

    /// Transport-cc feedback for the arrivals since the last one
    /// (draft-holmer-rmcat-transport-wide-cc-extensions-01 §3.1): it is what lets a browser raise
    /// its send rate and turn on its upper simulcast layers.
    func sendTransportFeedback(now: Int64) {
        defer { arrivals.removeAll(keepingCapacity: true) }
        lastFeedbackTime = now
        feedbackWindow.dropCovered(&arrivals)
        guard !arrivals.isEmpty else { return }
        guard let feedback = try? TransportLayerCC(senderSSRC: rtcpSSRC, mediaSSRC: feedbackMediaSSRC,
                                                   feedbackPacketCount: feedbackCount, arrivals: arrivals) else { return }
        feedbackCount &+= 1
        send([.transportCC(feedback)])
    }

    // MARK: - Reports

    /// One compound with an RR for every received stream (plus REMB when negotiated) and an SR
    /// for every consumer that has sent (RFC 3550 §6.4). An audio stream's block carries its
    /// subscribers' worst loss when that is larger (`Producer.reportBlock`).
    private func sendReports(now: Int64) {
        var blocks: [ReceptionReport] = []
        var mediaSSRCs: [UInt32] = []
        var wantsREMB = false
        for producer in producers where !producer.closed {
            wantsREMB = wantsREMB || producer.feedback.remb
            for stream in producer.streams {
                guard let ssrc = stream.ssrc, stream.statistics.started else { continue }
                mediaSSRCs.append(ssrc)
                blocks.append(producer.reportBlock(for: stream, ssrc: ssrc, now: now))
            }
        }
        var packets: [RTCPPacket] = []
        let ntp = MediaClock.ntpNow()
        for consumer in consumers where !consumer.closed {
            guard let report = consumer.makeSenderReport(now: now, wallClock: ntp) else { continue }
            packets.append(.senderReport(report))
        }
        // RR blocks go 31 to a packet (the 5-bit count, RFC 3550 §6.4.2).
        for start in stride(from: 0, to: blocks.count, by: 31) {
            let end = min(blocks.count, start + 31)
            packets.append(.receiverReport(ReceiverReport(ssrc: rtcpSSRC, reports: Array(blocks[start ..< end]))))
        }
        if wantsREMB, !mediaSSRCs.isEmpty {
            packets.append(.remb(ReceiverEstimatedMaxBitrate(senderSSRC: rtcpSSRC, bitrate: UInt64(configuration.maxIncomingBitrate),
                                                             ssrcs: Array(mediaSSRCs.prefix(255)))))
        }
        // Keep each datagram well under the MTU.
        var batch: [RTCPPacket] = []
        var size = 0
        for packet in packets {
            if size + packet.serializedSize > 1100, !batch.isEmpty {
                send(batch)
                batch.removeAll()
                size = 0
            }
            batch.append(packet)
            size += packet.serializedSize
        }
        if !batch.isEmpty { send(batch) }
    }

    /// Serializes and queues a compound.
    func send(_ packets: [RTCPPacket]) {
        let bytes = RTCPCompound.serialize(packets)
        if bytes.withUnsafeBytes({ sink.sendRTCP($0) }) {
            counters.rtcpSent += 1
            didSendUnpaced(bytes: bytes.count)
        }
    }
}

extension Consumer {
    /// An SR for this consumer's stream, or nil before it sent anything (RFC 3550 §6.4.1).
    ///
    /// With the publisher's own SR for the stream being forwarded, the NTP/RTP pair is the
    /// publisher's mapping moved into this consumer's timestamp domain (so the subscriber keeps
    /// the publisher's audio/video sync); otherwise it extrapolates from the last packet sent.
    func makeSenderReport(now: Int64, wallClock: UInt64) -> SenderReport? {
        guard lastSendTime != .min else { return nil }
        let ntp: UInt64
        let rtp: UInt32
        if let layer = currentLayer, producer.streams.indices.contains(layer),
           let sr = producer.streams[layer].senderReport {
            let elapsed = now - sr.arrival
            ntp = sr.ntp &+ MediaClock.ntpDuration(micros: elapsed)
            rtp = sr.rtp &+ UInt32(truncatingIfNeeded: elapsed * Int64(clockRate) / 1_000_000) &- timestampOffset
        } else {
            ntp = wallClock
            rtp = lastTimestamp &+ UInt32(truncatingIfNeeded: (now - lastSendTime) * Int64(clockRate) / 1_000_000)
        }
        let lsr = UInt32(truncatingIfNeeded: ntp >> 16)
        if sentReports.count == 2 { sentReports.removeFirst() }
        sentReports.append((lsr, now))
        return SenderReport(ssrc: ssrc, ntpTime: NTPTime(rawValue: ntp), rtpTime: rtp,
                            packetCount: UInt32(truncatingIfNeeded: counters.packetsSent),
                            octetCount: UInt32(truncatingIfNeeded: counters.payloadBytesSent))
    }
}
