import Foundation
import RTCNet
import SRTCProtocol
import SRTCTestSupport
import Testing
@testable import SRTCLoad

/// The small load test of `make test`: one publisher to four subscribers on the real server
/// in-process, three seconds. Delivery is asserted; delays are measured but never judged here
/// (speed lives in `make bench-sfu`).
struct LoadTestAgainstServerTests {
    /// Also with subscribers that decrypt one packet in 8 and count the rest from their clear
    /// headers, and with every transport on 2 shared I/O threads (the capacity rows of
    /// `make bench-sfu`): the same counts and delays.
    @Test(arguments: [(1, 0), (8, 0), (8, 2)])
    func onePublisherToFourSubscribersDeliversWhatWasSent(decryptionInterval: Int, sharedThreads: Int) async throws {
        // Webhooks to a port nobody listens on: the webhook families show failed attempts.
        let server = try TestServer(webhookURL: "http://127.0.0.1:9/hooks")
        let target = SRTCLoadTarget(baseURL: server.httpBase, appId: TestServer.appId, appKey: TestServer.appKey)
        let run = try await LoadRun(scenario: LoadScenario(publishers: 1, subscribers: 4, duration: 3), target: target,
                                    decryptionInterval: decryptionInterval, sharedReceiveThreads: sharedThreads)
        try await run.setUp()
        let report = await run.measure(seconds: 3)
        // /metrics shows the load while it runs (the SFU publishes its figures every second).
        let metrics = String(decoding: try await HTTPClient().get(server.httpBase + "/metrics").body, as: UTF8.self)
        await run.tearDown()
        await server.stop()

        #expect(report.failures.isEmpty, "\(report.failures)")
        #expect(report.subscribers == 4)
        #expect(report.streams == 8)                       // audio and video to each subscriber
        #expect(report.packetsSent > 300)                  // ~66 video + 50 audio packets a second
        // Every subscriber got at least 95 % of what the publisher sent on its streams.
        #expect(report.packetsExpected >= 4 * report.packetsSent * 9 / 10)
        #expect(report.worstSubscriberDelivery >= 0.95, "delivery \(report.worstSubscriberDelivery)")
        #expect(report.delivery >= 0.95)
        // Every packet carried its send time (abs-capture-time through our server): delays measured
        // (the delays cover the snapshots around the window, a little more than its edges).
        #expect(report.latency.samples >= report.packetsReceived)
        #expect(report.latency.p50 > 0)
        #expect(report.firstPacket.samples == 8)

        #expect(metrics.contains("srtc_media_subscriptions 8\n"))
        #expect(metrics.contains("srtc_media_published_tracks 2\n"))
        #expect(metrics.contains("srtc_media_participants 5\n"))
        // Published up to a second before the scrape: most of the window is in it.
        let forwarded = Self.value(of: #"srtc_media_packets_total{direction="out",kind="rtp"}"#, in: metrics)
        #expect(forwarded >= Double(report.packetsReceived) / 2)
        #expect(Self.value(of: "srtc_media_join_to_first_packet_seconds_count", in: metrics) == 4)
        #expect(Self.value(of: "srtc_media_forwarding_latency_seconds_count", in: metrics) >= forwarded)
        #expect(Self.value(of: "srtc_media_subscriber_loss_ratio_count", in: metrics) > 0)
        #expect(Self.value(of: "srtc_webhook_queue_depth", in: metrics) + Self.value(of: "srtc_webhook_failures_total", in: metrics) > 0)

        // Every series the Grafana dashboard (deploy/grafana) queries is one the server exports.
        let dashboard = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("deploy/grafana/srtc-dashboard.json")
        let queried = Set(try String(contentsOf: dashboard, encoding: .utf8).matches(of: /srtc_[a-z_]+/).map { String($0.output) })
        #expect(queried.count > 15)
        for name in queried.sorted() {
            // A sample, or at least the family (counters by label have no sample before their first event).
            let family = name.replacingOccurrences(of: "_bucket", with: "")
            #expect(metrics.split(separator: "\n").contains { $0.hasPrefix(name + " ") || $0.hasPrefix(name + "{") || $0 == "# TYPE \(family) counter" },
                    "the dashboard queries \(name), which /metrics does not export")
        }
    }

    /// A load of 31 transports served by 2 shared I/O threads (`LoadRun(sharedReceiveThreads:)`):
    /// every subscriber connects and counts what it was sent, no gap stays unfilled on loopback, and
    /// the delay and NACK figures are computed as with a thread per transport (printed).
    @Test func thirtySubscribersOnTwoSharedThreadsReceiveEverything() async throws {
        let server = try TestServer()
        let target = SRTCLoadTarget(baseURL: server.httpBase, appId: TestServer.appId, appKey: TestServer.appKey)
        let run = try await LoadRun(scenario: LoadScenario(publishers: 1, subscribers: 30, duration: 3, joinRate: 100), target: target,
                                    decryptionInterval: 16, sharedReceiveThreads: 2)
        try await run.setUp()
        let threads = run.sharedLoops?.socketsPerThread ?? []
        let report = await run.measure(seconds: 3)
        await run.tearDown()
        await server.stop()
        print("shared threads: sockets \(threads); \(report.packetsReceived) of \(report.packetsExpected) packets, lost \(report.packetsLost), "
              + "NACKs \(report.nacksSent), e2e p50 \(report.latency.p50) p99 \(report.latency.p99) ms, set up in \(report.setupSeconds) s")

        #expect(report.failures.isEmpty, "\(report.failures)")
        #expect(threads == [16, 15])                       // 1 publisher + 30 subscribers, round-robin
        #expect(report.subscribers == 30)
        #expect(report.streams == 60)
        #expect(report.firstPacket.samples == 60)
        #expect(report.packetsReceived > 30 * 300)          // ~116 packets a second to each for 3 s
        #expect(report.packetsLost == 0)
        #expect(report.worstSubscriberDelivery >= 0.95, "delivery \(report.worstSubscriberDelivery)")  // window edges
        #expect(report.latency.samples >= report.packetsReceived)
        #expect(report.latency.p50 > 0)
        #expect(run.sharedLoops?.socketsPerThread == [0, 0])  // every transport left its thread
    }

    /// A window counts what arrived between its edges, however long the per-stream snapshots
    /// around it take. Here the I/O thread of half the subscribers is held a second as the
    /// window ends (as a starved generator's thread is), so the snapshots after the window
    /// wait behind a second more of media. Those packets used to be counted against the
    /// window's length: `make bench-sfu` reported more delivered than the publishers sent
    /// (30 rooms × 5 with 2 workers on this machine's two cores).
    @Test func theWindowCountsOnlyWhatArrivedBetweenItsEdges() async throws {
        let server = try TestServer()
        let target = SRTCLoadTarget(baseURL: server.httpBase, appId: TestServer.appId, appKey: TestServer.appKey)
        let run = try await LoadRun(scenario: LoadScenario(publishers: 1, subscribers: 4, duration: 1), target: target,
                                    decryptionInterval: 16, sharedReceiveThreads: 2)
        try await run.setUp()
        var edges: [Int] = []
        let stalled = run.subscribers[0]
        let report = await run.measure(seconds: 1, atEdge: { end in
            edges.append(run.subscribers.reduce(0) { $0 + $1.packetsReceived.load(ordering: .relaxed) })
            if end { _ = stalled.execute { _, _ in usleep(1_000_000) } }
        })
        await run.tearDown()
        await server.stop()

        #expect(report.failures.isEmpty, "\(report.failures)")
        #expect(edges.count == 2)
        #expect(report.packetsReceived == edges[1] - edges[0])
        #expect(report.packetsReceived > 0)
        // Four subscribers of one publisher's audio and video: at most four copies of each
        // packet sent in the window (the publisher's count is read as the window ends).
        #expect(report.packetsReceived <= 4 * report.packetsSent, "\(report.packetsReceived) received, \(report.packetsSent) sent")
    }

    /// Counting-only subscribers (the capacity search of `make bench-sfu`): their sockets are
    /// swept once connected, they decrypt nothing past the first packet, and they count from the
    /// clear RTP headers. The publisher's video skips exactly 12 packets (every 4th of 48, as if
    /// lost before the server, never resent): each subscriber's video counts exactly 12 lost from
    /// the sequence numbers, every other packet of the span received, audio none lost; NACKs
    /// ask for exactly those 12; and every packet the publisher sent after a subscriber's first
    /// counted packet is counted (a few more at most: those sent while the first waited for its sweep).
    @Test func countingOnlySubscribersCountEveryPacketAndTheLossFromSequenceNumbers() async throws {
        let server = try TestServer()
        let target = SRTCLoadTarget(baseURL: server.httpBase, appId: TestServer.appId, appKey: TestServer.appKey)
        let run = try await LoadRun(scenario: LoadScenario(publishers: 1, subscribers: 4, duration: 3), target: target,
                                    sharedReceiveThreads: 2, countingOnly: true)
        try await run.setUp()
        #expect(run.sharedLoops?.sweptSocketsPerThread.reduce(0, +) == 4)   // the subscribers', not the publisher's
        let streams = try #require(run.publishers.first?.streams)
        let video = try #require(streams.first { $0.loop.isVideo }), audio = try #require(streams.first { !$0.loop.isVideo })
        run.publishers[0].execute { _, _ in video.drop(12, every: 4) }
        let report = await run.measure(seconds: 2)
        let deadline = ContinuousClock.now + .seconds(5)
        while video.dropped.load(ordering: .relaxed) < 12, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(video.dropped.load(ordering: .relaxed) == 12)
        try await Task.sleep(for: .milliseconds(500))       // packets after the last gap show it
        run.stopSending()
        try await Task.sleep(for: .milliseconds(300))       // what is in flight is swept
        let sentVideo = video.packetsSent.load(ordering: .relaxed), sentAudio = audio.packetsSent.load(ordering: .relaxed)
        var snapshots: [LoadSubscriberSnapshot] = []
        for subscriber in run.subscribers { snapshots.append(await subscriber.snapshot(resetLatency: false)) }
        let counted = run.subscribers.map { $0.packetsReceived.load(ordering: .relaxed) }
        await run.tearDown()
        await server.stop()

        #expect(report.failures.isEmpty, "\(report.failures)")
        #expect(report.packetsReceived > 0 && report.latency.samples > 0)
        #expect(snapshots.count == 4)
        for (index, snapshot) in snapshots.enumerated() {
            let v = try #require(snapshot.streams.first { $0.kind == .video }), a = try #require(snapshot.streams.first { $0.kind == .audio })
            #expect(v.lost == 12 && v.received == v.expected - 12, "subscriber \(index) video: \(v)")
            #expect(v.nackedPackets == 12, "subscriber \(index) video: \(v)")
            #expect(a.lost == 0 && a.received == a.expected, "subscriber \(index) audio: \(a)")
            // Its atomic count is the sum of its streams'.
            #expect(counted[index] == v.received + a.received)
            // `sourceSent`: the publisher's sends from when the first packet here was counted on;
            // the first, and what was sent while it waited in the socket for its sweep, come on top.
            for stream in [v, a] {
                let extra = stream.received - (stream.sourceSent ?? .min)
                #expect(extra >= 1 && extra <= 8, "subscriber \(index): \(stream)")
            }
        }
        #expect(sentVideo > 100 && sentAudio > 100)
    }

    /// The value of the sample `name` (with its labels) in Prometheus text; -1 when absent.
    static func value(of name: String, in text: String) -> Double {
        for line in text.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Double(line.dropFirst(name.count + 1)) ?? -1
        }
        return -1
    }
}
