import SFU

/// The media plane on `/metrics`: how many channels, participants, tracks and subscriptions;
/// packets, bytes and feedback through the SFU; subscribers' loss, jitter and RTT, bandwidth
/// estimates, join-to-first-packet and forwarding latency as histograms; each SFU worker's busy
/// ratio. The SFU's figures are those it published in the last second. Labels are bounded
/// (direction, kind, type, worker index): nothing per user or channel.
final class MediaMetrics: MetricsSource {
    private let channels: ChannelManager
    private let media: MediaServerSlot

    init(channels: ChannelManager, media: MediaServerSlot) {
        self.channels = channels
        self.media = media
    }

    /// Bounds of the histograms, in their display units.
    static let lossBounds = [0.001, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5]
    static let jitterBounds = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2]
    static let rttBounds = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1]
    static let bandwidthBounds = [100_000.0, 300_000, 500_000, 1_000_000, 2_000_000, 5_000_000, 10_000_000]
    static let firstPacketBounds = [0.1, 0.25, 0.5, 1, 2, 5, 10]
    static let forwardingBounds = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01]

    func render(into text: inout PrometheusText) {
        let m = media.current?.metrics ?? SFUMetrics()
        text.family("srtc_channels", "gauge", "Live channels.")
        text.sample("srtc_channels", channels.count)
        text.family("srtc_media_participants", "gauge", "Participants with a media transport.")
        text.sample("srtc_media_participants", m.participants)
        text.family("srtc_media_published_tracks", "gauge", "Published tracks (SFU producers).")
        text.sample("srtc_media_published_tracks", m.producers)
        text.family("srtc_media_subscriptions", "gauge", "Subscriptions (SFU consumers).")
        text.sample("srtc_media_subscriptions", m.consumers)
        text.family("srtc_media_transports", "gauge", "Media transports (a participant has one to publish, one to subscribe).")
        text.sample("srtc_media_transports", m.transports)

        let c = m.counters
        text.family("srtc_media_packets_total", "counter", "Packets through the SFU by direction and kind.")
        text.sample("srtc_media_packets_total", ["direction": "in", "kind": "rtp"], c.rtpPacketsIn)
        text.sample("srtc_media_packets_total", ["direction": "in", "kind": "rtcp"], c.rtcpPacketsIn)
        text.sample("srtc_media_packets_total", ["direction": "out", "kind": "rtp"], c.rtpPacketsOut)
        text.sample("srtc_media_packets_total", ["direction": "out", "kind": "rtcp"], c.rtcpPacketsOut)
        text.family("srtc_media_bytes_total", "counter", "RTP bytes through the SFU (before SRTP) by direction.")
        text.sample("srtc_media_bytes_total", ["direction": "in"], c.rtpBytesIn)
        text.sample("srtc_media_bytes_total", ["direction": "out"], c.rtpBytesOut)
        text.family("srtc_media_nacks_total", "counter", "NACK packets received from subscribers and sent to publishers.")
        text.sample("srtc_media_nacks_total", ["direction": "received"], c.nacksReceived)
        text.sample("srtc_media_nacks_total", ["direction": "sent"], c.nacksSent)
        text.family("srtc_media_retransmissions_total", "counter", "Packets resent to subscribers in answer to NACKs.")
        text.sample("srtc_media_retransmissions_total", c.retransmissions)
        text.family("srtc_media_key_frame_requests_total", "counter", "PLI and FIR received from subscribers and sent to publishers.")
        text.sample("srtc_media_key_frame_requests_total", ["type": "pli", "direction": "received"], c.plisReceived)
        text.sample("srtc_media_key_frame_requests_total", ["type": "fir", "direction": "received"], c.firsReceived)
        text.sample("srtc_media_key_frame_requests_total", ["type": "pli", "direction": "sent"], c.plisSent)
        text.sample("srtc_media_key_frame_requests_total", ["type": "fir", "direction": "sent"], c.firsSent)
        text.family("srtc_media_dropped_packets_total", "counter", "Packets the SFU could not use, by reason.")
        text.sample("srtc_media_dropped_packets_total", ["reason": "unknown_ssrc"], c.unknownSSRC)
        text.sample("srtc_media_dropped_packets_total", ["reason": "malformed"], c.malformed)
        text.family("srtc_media_red_added_total", "counter",
                    "Plain Opus packets sent in RED toward lossy subscribers, by whether the previous packet went along and why not.")
        text.sample("srtc_media_red_added_total", ["block": "with"], c.red.withBlock)
        text.sample("srtc_media_red_added_total", ["block": "not_previous"], c.red.notPrevious)
        text.sample("srtc_media_red_added_total", ["block": "not_cached"], c.red.notCached)
        text.sample("srtc_media_red_added_total", ["block": "unfit"], c.red.unfit)
        text.family("srtc_media_red_switches_total", "counter", "Times adding RED toward a subscriber was turned on and off.")
        text.sample("srtc_media_red_switches_total", ["to": "on"], c.red.turnedOn)
        text.sample("srtc_media_red_switches_total", ["to": "off"], c.red.turnedOff)

        text.histogram("srtc_media_subscriber_loss_ratio", "Fraction lost in each subscriber receiver report.",
                       m.subscriberLoss, bounds: Self.lossBounds, unitsPerBound: 1000)
        text.histogram("srtc_media_subscriber_jitter_seconds", "Interarrival jitter in each subscriber receiver report.",
                       m.subscriberJitter, bounds: Self.jitterBounds, unitsPerBound: 1e6)
        text.histogram("srtc_media_subscriber_rtt_seconds", "Round-trip time to subscribers, from receiver reports.",
                       m.subscriberRTT, bounds: Self.rttBounds, unitsPerBound: 1e6)
        text.histogram("srtc_media_bandwidth_estimate_bps", "Each subscribe transport's bandwidth estimate, sampled every second.",
                       m.bandwidthEstimate, bounds: Self.bandwidthBounds, unitsPerBound: 1e-3)
        text.histogram("srtc_media_join_to_first_packet_seconds", "From a participant's join to the first packet forwarded to it.",
                       m.joinToFirstPacket, bounds: Self.firstPacketBounds, unitsPerBound: 1e6)
        text.histogram("srtc_media_forwarding_latency_seconds", "From a packet's arrival to the kernel taking each copy.",
                       m.forwardingLatency, bounds: Self.forwardingBounds, unitsPerBound: 1e6)

        text.family("srtc_sfu_worker_busy_ratio", "gauge", "Share of the last second each SFU worker thread spent on the CPU.")
        for (index, ratio) in m.busyRatios.enumerated() { text.sample("srtc_sfu_worker_busy_ratio", ["worker": String(index)], ratio) }
        workerSeries(m.workers, into: &text)
    }

    /// One series per media worker (`worker="0"` …), in worker order.
    private func workerSeries(_ workers: [SFUMetrics.Worker], into text: inout PrometheusText) {
        func each(_ name: String, _ type: String, _ help: String, _ value: (SFUMetrics.Worker) -> Double) {
            text.family(name, type, help)
            for (index, worker) in workers.enumerated() { text.sample(name, ["worker": String(index)], value(worker)) }
        }
        each("srtc_sfu_worker_forwarded_packets_total", "counter", "RTP packets each SFU worker sent to subscribers.") { Double($0.forwardedPackets) }
        each("srtc_sfu_worker_forwarded_packets_per_second", "gauge", "RTP packets each SFU worker forwarded per second over the last second (what channel placement compares).") { $0.forwardedPerSecond }
        each("srtc_sfu_worker_cpu_seconds_total", "counter", "CPU time of each SFU worker's thread (its own thread clock).") { $0.cpuSeconds }
        each("srtc_sfu_worker_transports", "gauge", "Media transports on each SFU worker.") { Double($0.transports) }
        each("srtc_sfu_worker_channels", "gauge", "Channels (routers) on each SFU worker.") { Double($0.routers) }
        each("srtc_sfu_worker_send_queue_drops_total", "counter", "Datagrams each SFU worker's send queue or the kernel refused.") { Double($0.sendQueueDrops) }
        each("srtc_sfu_worker_unrouted_datagrams_total", "counter", "Datagrams on each SFU worker's port that none of its transports claimed.") { Double($0.unroutedDatagrams) }
        each("srtc_sfu_worker_retransmissions_total", "counter", "Packets each SFU worker resent in answer to NACKs.") { Double($0.retransmissions) }
        each("srtc_sfu_worker_pipes", "gauge", "Ends of in-process pipes on each SFU worker (channels spanning workers).") { Double($0.pipes) }
        each("srtc_sfu_worker_pipe_drops_total", "counter", "Packets each SFU worker's pipes dropped because the other worker fell behind.") { Double($0.pipeDrops) }
    }
}
