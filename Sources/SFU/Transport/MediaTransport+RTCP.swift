import RTCWire

// Incoming RTCP: reports and feedback from the peer, routed by SSRC to producer streams
// (sender reports) and consumers (receiver reports, NACK, PLI, FIR), or to the transport's
// bandwidth estimate (REMB, transport-cc).

extension MediaTransport {
    /// Handles one decrypted compound RTCP packet (RFC 3550 §6.1; RFC 5506 reduced size allowed).
    func receiveRTCP(_ packet: UnsafeRawBufferPointer, now: Int64) {
        guard !closed else { return }
        counters.lastReceiveTime = now
        counters.rtcpReceived += 1
        guard let compound = try? RTCPCompoundView(packet) else { counters.malformed += 1; return }
        for slice in compound {
            switch (slice.header.packetType, slice.header.count) {
            case (RTCPPacketType.senderReport, _):
                guard let report = try? SenderReport(parsing: slice.bytes) else { counters.malformed += 1; continue }
                stream(ssrc: report.ssrc)?.receivedSenderReport(ntp: report.ntpTime.rawValue, rtp: report.rtpTime, now: now)
                for block in report.reports { receivedReportBlock(block, now: now) }
            case (RTCPPacketType.receiverReport, _):
                guard let report = try? ReceiverReport(parsing: slice.bytes) else { counters.malformed += 1; continue }
                for block in report.reports { receivedReportBlock(block, now: now) }
            case (RTCPPacketType.transportFeedback, TransportLayerNack.format):
                guard let nack = try? TransportLayerNack(parsing: slice.bytes) else { counters.malformed += 1; continue }
                counters.nacksReceived += 1
                let asked = consumer(ssrc: nack.mediaSSRC)?.retransmit(nack.lostSequenceNumbers, now: now) ?? 0
                // Loss during a probe toward a REMB-only receiver stops it (`REMBProbeEvidence`),
                // at the next tick rather than at the next receiver report.
                if asked > 0, isProbing, firstFeedbackTime == .min {
                    bandwidth.onProbeNACK(asked: asked, packetsSent: counters.rtpSent)
                }
            case (RTCPPacketType.transportFeedback, TransportLayerCC.format):
                guard let feedback = try? TransportLayerCC(parsing: slice.bytes) else { counters.malformed += 1; continue }
                receivedTransportFeedback(feedback, now: now)
            case (RTCPPacketType.payloadFeedback, PictureLossIndication.format):
                guard let pli = try? PictureLossIndication(parsing: slice.bytes) else { counters.malformed += 1; continue }
                counters.plisReceived += 1
                consumer(ssrc: pli.mediaSSRC)?.receivedKeyFrameRequest(now: now)
            case (RTCPPacketType.payloadFeedback, FullIntraRequest.format):
                guard let fir = try? FullIntraRequest(parsing: slice.bytes) else { counters.malformed += 1; continue }
                counters.firsReceived += 1
                for entry in fir.entries { consumer(ssrc: entry.ssrc)?.receivedKeyFrameRequest(now: now) }
            case (RTCPPacketType.payloadFeedback, ReceiverEstimatedMaxBitrate.format):
                // Other application-layer feedback is ignored.
                guard let remb = try? ReceiverEstimatedMaxBitrate(parsing: slice.bytes) else { continue }
                let dropping = bandwidth.rembDropping(now: now)
                bandwidth.onREMB(bitrate: remb.bitrate, now: now)
                // Without transport-cc a REMB that falls fast is the congestion signal: acted on
                // at once, as a transport-cc feedback showing a queue is.
                if firstFeedbackTime == .min, !dropping, bandwidth.rembDropping(now: now), !isProbing {
                    allocateLayers(now: now, cause: .bandwidth)
                }
            default:
                continue
            }
        }
    }

    /// A report block about one of our consumers' streams: loss, jitter and, from LSR/DLSR, the
    /// round-trip time (RFC 3550 §6.4.1: A − LSR − DLSR, with A taken from our own send record so
    /// the NTP clock in the SR need not be ours).
    private func receivedReportBlock(_ block: ReceptionReport, now: Int64) {
        guard let consumer = consumer(ssrc: block.ssrc) else { return }
        consumer.report.fractionLost = block.fractionLost
        consumer.report.cumulativeLost = block.totalLost
        consumer.report.highestSequence = block.lastSequenceNumber
        consumer.report.jitter = block.jitter
        consumer.report.receivedAt = now
        consumer.receivedReport(now: now)
        let metrics = router.metrics
        metrics.subscriberLoss.record(Int64(block.fractionLost) * 1000 / 256)
        metrics.subscriberJitter.record(Int64(block.jitter) * 1_000_000 / Int64(max(1, consumer.clockRate)))
        var roundTrip: Int64?
        defer {
            // Judges a probe toward a REMB-only receiver and the rate one proved.
            bandwidth.onReceiverReport(ssrc: block.ssrc, fractionLost: Double(block.fractionLost) / 256, roundTrip: roundTrip, now: now)
        }
        guard block.lastSenderReport != 0,
              let sent = consumer.sentReports.first(where: { $0.lsr == block.lastSenderReport }) else { return }
        let delay = Int64(block.delay) * 1_000_000 / 65_536
        let rtt = now - sent.at - delay
        if rtt >= 0 {
            roundTrip = max(1, rtt)
            consumer.report.roundTripTime = max(1, rtt)
            metrics.subscriberRTT.record(rtt)
        }
    }

    /// Transport-cc feedback on our packets: joined with the send history for the estimator.
    private func receivedTransportFeedback(_ feedback: TransportLayerCC, now: Int64) {
        var packets: [BandwidthEstimator.PacketFeedback] = []
        packets.reserveCapacity(Int(feedback.packetStatusCount))
        for result in feedback.packetResults {
            guard let sent = sendHistory.lookup(result.sequenceNumber) else { continue }
            packets.append(.init(sendTime: sent.sendTime, size: Int(sent.size), arrivalTime: result.arrivalTime))
        }
        if firstFeedbackTime == .min { firstFeedbackTime = now }
        let wasCongested = allocator.configuration.isCongestion(lossRate: bandwidth.lastLossRate, queueDelay: bandwidth.lastLossQueueDelay,
                                                                overusing: bandwidth.overusing)
        bandwidth.onTransportFeedback(packets, now: now)
        // Congestion starting is acted on at once, not at the next allocation round (up to 500 ms
        // later): a tail-drop queue full of video drops the audio with it.
        let congested = allocator.configuration.isCongestion(lossRate: bandwidth.lastLossRate, queueDelay: bandwidth.lastLossQueueDelay,
                                                             overusing: bandwidth.overusing)
        if congested, !wasCongested, !isProbing {
            allocateLayers(now: now, cause: .bandwidth)
        } else if consumers.contains(where: { $0.kind == .video }) {
            // The pacer follows the estimate at every feedback, not only every allocation round.
            updatePacingRate(estimate: usableEstimate(now: now), probeRate: probePacer?.rate)
        }
    }
}
