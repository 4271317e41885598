import Testing
import SRTCProtocol
@testable import SRTCServer

/// A participant two media workers measure gets one quality report per interval and one level
/// (docs/protocol.md, `quality_report`): the channel's router sees its publish transport, the
/// serving worker's router its subscriptions.
struct QualityReportMergerTests {
    static func report(_ uid: String = "carol", at timestamp: Int64, up: LinkStats = LinkStats(), down: LinkStats = LinkStats(),
                       rtt: Double = 0, estimate: Int? = nil, _ quality: ConnectionQuality = .excellent) -> QualityReport {
        QualityReport(uid: uid, timestamp: timestamp, upstream: up, downstream: down, rttMs: rtt, availableBitrateBps: estimate, quality: quality)
    }

    @Test func aParticipantOneRouterMeasuresGetsItsReportsAtOnce() {
        var merger = QualityReportMerger()
        let r = Self.report(at: 1, up: LinkStats(bitrateBps: 500_000, packets: 200))
        #expect(merger.add(r, from: .channel) == [r])
        #expect(merger.add(r, from: .channel) == [r])
    }

    @Test func thePublishHalfAndTheSubscribeHalfBecomeOneReport() {
        var merger = QualityReportMerger()
        let publish = Self.report(at: 5_000, up: LinkStats(bitrateBps: 600_000, packets: 300, lossRate: 0.02, jitterMs: 4), rtt: 0, .good)
        let subscribe = Self.report(at: 5_010, down: LinkStats(bitrateBps: 900_000, packets: 100, lossRate: 0.1, jitterMs: 8),
                                    rtt: 42, estimate: 1_200_000, .excellent)
        // The serving worker's half arrives first here; the channel's completes the interval.
        #expect(merger.add(subscribe, from: .serving) == [])
        let merged = merger.add(publish, from: .channel)
        #expect(merged == [Self.report(at: 5_010, up: publish.upstream, down: subscribe.downstream, rtt: 42, estimate: 1_200_000, .good)])
        // Both routers subscribe and publish: each direction is summed, loss and jitter weighted by packets.
        let a = Self.report(at: 10_000, up: LinkStats(bitrateBps: 100, packets: 100, lossRate: 0.1, jitterMs: 10), down: LinkStats(bitrateBps: 50, packets: 10))
        let b = Self.report(at: 10_000, up: LinkStats(bitrateBps: 300, packets: 300, lossRate: 0.0, jitterMs: 2), down: LinkStats(bitrateBps: 70, packets: 30))
        #expect(merger.add(a, from: .channel) == [])
        let both = merger.add(b, from: .serving)
        #expect(both.count == 1)
        #expect(both.first?.upstream == LinkStats(bitrateBps: 400, packets: 400, lossRate: 0.025, jitterMs: 4))
        #expect(both.first?.downstream == LinkStats(bitrateBps: 120, packets: 40))
    }

    @Test func aViewerWithoutAPublishTransportGetsOneReportPerIntervalOneIntervalLate() {
        var merger = QualityReportMerger()
        let first = Self.report(at: 5_000, down: LinkStats(bitrateBps: 1, packets: 1))
        let second = Self.report(at: 10_000, down: LinkStats(bitrateBps: 2, packets: 2))
        let third = Self.report(at: 15_000, down: LinkStats(bitrateBps: 3, packets: 3))
        #expect(merger.add(first, from: .serving) == [])
        #expect(merger.add(second, from: .serving) == [first])
        #expect(merger.add(third, from: .serving) == [second])
        merger.forget("carol")
        #expect(merger.add(third, from: .channel) == [third])
    }

    @Test func theLevelIsTheWorseOfBothRoutersAndChangesAreSentOnce() {
        var merger = QualityReportMerger()
        func change(_ q: ConnectionQuality, _ previous: ConnectionQuality) -> ConnectionQualityChange {
            ConnectionQualityChange(uid: "carol", quality: q, previous: previous)
        }
        #expect(merger.add(change(.good, .excellent), from: .channel) == change(.good, .excellent))
        #expect(merger.add(change(.poor, .excellent), from: .serving) == change(.poor, .good))
        // The channel's router recovers: the serving worker still measures poor.
        #expect(merger.add(change(.excellent, .good), from: .channel) == nil)
        #expect(merger.add(change(.excellent, .poor), from: .serving) == change(.excellent, .poor))
    }

    /// Between nodes: the relaying node's own report of the subscriptions it serves, and the
    /// channel's node's report relayed on the session's WebSocket (`EdgeClients.divert`).
    @Test func aRelayingNodeSendsOneReportOfItsOwnAndTheChannelNodesHalves() {
        let clients = EdgeClients()
        let connection = RecordingConnection()
        clients.attach(connection, channel: "app/room@a", uid: "carol")
        let down = LinkStats(bitrateBps: 900_000, packets: 100)
        let up = LinkStats(bitrateBps: 600_000, packets: 300)
        clients.send(.qualityReport(Self.report(at: 1, down: down, rtt: 30)), channel: "app/room@a", uid: "carol")
        #expect(connection.events.isEmpty)
        let relayed = SignalCodec.encode(.event(.qualityReport(Self.report(at: 2, up: up))))
        #expect(clients.divert(relayed, channel: "app/room@a", uid: "carol"))
        #expect(connection.events == [.qualityReport(Self.report(at: 2, up: up, down: down, rtt: 30))])
        // Other events of the channel's node pass as before (on the WebSocket: no data channel).
        #expect(!clients.divert(SignalCodec.encode(.event(.userLeft(UserLeft(uid: "x", reason: .clientLeave)))), channel: "app/room@a", uid: "carol"))
    }

    /// Through the room's inbox, as `WorkerRelayEvents` and `MediaServer` post them.
    @Test func theRoomSendsTheMergedReportAndTheWorseLevel() async throws {
        let h = RoomHarness()
        let alice = try await h.join("alice")
        let carol = try await h.join("carol")
        let up = LinkStats(bitrateBps: 600_000, packets: 300)
        let down = LinkStats(bitrateBps: 900_000, packets: 100)
        h.room.inbox.post(.qualityReport(Self.report(at: 1, down: down, rtt: 30), .serving))
        h.room.inbox.post(.qualityReport(Self.report(at: 2, up: up), .channel))
        h.room.inbox.post(.connectionQuality(ConnectionQualityChange(uid: "carol", quality: .poor, previous: .excellent), .serving))
        h.room.inbox.post(.connectionQuality(ConnectionQualityChange(uid: "carol", quality: .excellent, previous: .good), .channel))
        await h.settled()
        let reports = carol.connection.events.compactMap { if case .qualityReport(let r) = $0 { r } else { nil } }
        #expect(reports == [Self.report(at: 2, up: up, down: down, rtt: 30)])
        let levels = alice.connection.events.compactMap { if case .connectionQuality(let c) = $0 { c } else { nil } }
        #expect(levels == [ConnectionQualityChange(uid: "carol", quality: .poor, previous: .excellent)])
        await h.room.close(reason: .serverShutdown)
    }
}
