import Dispatch
import Foundation
import SMeeting
import SRTC
import SRTCTestSupport
import Synchronization
import TestWait
import Testing

/// The engine lifecycle of seed 000 (`sharedEngine`, one engine per process, `destroy`, the log
/// sink) and seed 003's "always use `meeting.srtc`". The process has one engine slot, so every
/// test that takes it is in this one serialized suite; all other tests make engines with
/// `SRTCEngine(independent:)`, which never take it. It lives here because SMeeting shares the rule.
@Suite(.serialized) struct ProcessEngineTests {
    /// Collects log lines the engine hands to its sink.
    final class LogLines: @unchecked Sendable {
        private let lines = Mutex<[(LogLevel, String)]>([])
        var all: [(LogLevel, String)] { lines.withLock { $0 } }
        var sink: LogSink { { [self] level, text in lines.withLock { $0.append((level, text)) } } }
    }

    @Test func oneEngineLivesAtATimeAndDestroyReleasesIt() async throws {
        let queue = DispatchQueue(label: "process-engine")
        let first = try SRTCEngine(configuration: .init(delegateQueue: queue, logLevel: .off))
        #expect(SRTCEngine.sharedEngine() === first)
        #expect(throws: SRTCError.self) { _ = try SRTCEngine(delegateQueue: queue) }
        #expect(throws: SRTCError.self) { _ = try SRTCEngine.sharedEngine(configuration: .init(delegateQueue: queue)) }
        do {
            _ = try SRTCEngine(delegateQueue: queue)
        } catch {
            #expect(error.code == 1009, "a second engine is the documented .conflict")
        }
        // An independent engine (tests, workers) is outside the rule and leaves the slot alone.
        let independent = SRTCEngine(independent: .init(delegateQueue: queue, logLevel: .off))
        #expect(SRTCEngine.sharedEngine() === first)
        await independent.destroy()
        #expect(SRTCEngine.sharedEngine() === first)

        _ = try first.createChannel()
        await first.destroy()
        #expect(throws: SRTCError.engineDestroyed) { _ = try first.createChannel() }
        #expect(first.getChannels().isEmpty)

        // Destroyed, the slot is free: a new engine can be made, and sharedEngine() answers it.
        let second = try SRTCEngine.sharedEngine(configuration: .init(delegateQueue: queue, logLevel: .off), appGroup: "group.srtc.test")
        #expect(second !== first && SRTCEngine.sharedEngine() === second)
        #expect(second.configuration.appGroup == "group.srtc.test")
        await second.destroy()
        // With none alive, sharedEngine() makes one with the default configuration.
        let made = SRTCEngine.sharedEngine()
        #expect(made !== second && SRTCEngine.sharedEngine() === made && made.logLevel == .warning)
        await made.destroy()
    }

    /// Two threads asking at once get the same engine: creation is one step.
    @Test func concurrentSharedEngineCallsMakeOneEngine() async throws {
        let engines = await withTaskGroup(of: ObjectIdentifier.self) { group in
            for _ in 0..<16 { group.addTask { ObjectIdentifier(SRTCEngine.sharedEngine()) } }
            return await group.reduce(into: Set<ObjectIdentifier>()) { $0.insert($1) }
        }
        #expect(engines.count == 1)
        await SRTCEngine.sharedEngine().destroy()
    }

    /// The app's sink gets the engine's lines at or above the level, without the stderr prefix;
    /// a join through the real server logs "joined <channel> as <uid>" at `.info`.
    @Test func logLinesGoToTheAppsSinkAtItsLevel() async throws {
        let server = try TestServer()
        let lines = LogLines()
        let engine = try SRTCEngine(configuration: .init(delegateQueue: DispatchQueue(label: "log-sink"), logLevel: .warning,
                                                         mediaBindAddress: "127.0.0.1", logSink: lines.sink))
        let quiet = try engine.createChannel()
        try await quiet.join(url: server.httpBase, token: server.token(uid: "quiet", channel: "logs"))
        #expect(!lines.all.contains { $0.1.contains("joined") }, "an .info line below the .warning level: \(lines.all)")

        engine.logLevel = .info
        let told = try engine.createChannel()
        try await told.join(url: server.httpBase, token: server.token(uid: "told", channel: "logs"))
        #expect(lines.all.contains { $0.0 == .info && $0.1 == "joined logs as told" }, "\(lines.all)")
        #expect(lines.all.allSatisfy { $0.0 >= .info && !$0.1.hasPrefix("[srtc") })

        // Changed later: the next lines go to the new sink.
        let later = LogLines()
        engine.logSink = later.sink
        await engine.destroy()
        #expect(later.all.contains { $0.1.hasPrefix("left channel") }, "\(later.all)")
        await server.stop()
    }

    /// Seed 003: the meeting and the app share one engine. `SMeetingEngine` takes the live one
    /// (the app's configuration wins), or makes it.
    @Test func meetingEngineUsesTheProcessEngine() async throws {
        let server = try TestServer.withMeetings()
        let queue = DispatchQueue(label: "app-events")
        let app = try SRTCEngine(configuration: .init(delegateQueue: queue, logLevel: .off))
        let meeting = SMeetingEngine(url: server.httpBase, delegateQueue: DispatchQueue(label: "ignored"))
        #expect(meeting.srtc === app && meeting.srtc.configuration.delegateQueue === queue)
        #expect(throws: SRTCError.self) { _ = try SRTCEngine(delegateQueue: queue) }
        await app.destroy()

        let second = SMeetingEngine(url: server.httpBase, configuration: .init(delegateQueue: queue, logLevel: .off))
        #expect(second.srtc !== app && SRTCEngine.sharedEngine() === second.srtc)
        await second.srtc.destroy()
        await server.stop()
    }
}
