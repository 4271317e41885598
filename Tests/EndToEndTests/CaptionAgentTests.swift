import Foundation
import MediaTestSupport
#if canImport(Glibc)
import Glibc
#endif
import SRTC
import SRTCAgents
import SRTCTestSupport
import Synchronization
import TestWait
import Testing

/// Live captions as a server feature (docs/captions.md): the routes start an `srtc-egress`
/// caption worker, `srtc join` bots publish eSpeak NG's speech, and SDK participants receive the
/// `caption` events (on the data channel, and on the WebSocket for a client without one); the
/// stored transcript and the webhooks are checked against what arrived. A heavy suite (its name
/// matches the Makefile's `AgentTests`): at most two speakers talk at once.
@Suite(.serialized) struct CaptionAgentTests {
    static let sentence = AgentTests.sentence
    static let second = AgentTests.second

    /// A server with egress and webhooks, listeners and bots.
    final class Call: @unchecked Sendable {
        let hooks: TestWebhookReceiver
        let server: EgressTestServer
        let channel: String
        private var peers: [SDKPeer] = []
        private var bots: [BotProcess] = []

        init(channel: String) throws {
            hooks = try TestWebhookReceiver()
            server = try EgressTestServer(webhookURL: hooks.url)
            self.channel = channel
        }

        /// A participant that collects captions (`dataChannel` false: they come on the WebSocket).
        func listener(_ uid: String, dataChannel: Bool = true) async throws -> CaptionCollector {
            let peer = SDKPeer(useDataChannel: dataChannel)
            let collector = CaptionCollector()
            peer.channel.delegates.add(delegate: collector)
            try await peer.channel.join(url: server.url, token: server.token(uid: uid, channel: channel))
            peers.append(peer)
            collector.peer = peer
            return collector
        }

        func bot(_ uid: String, wav: String) throws -> BotProcess {
            let bot = try BotProcess(url: server.url, channel: channel, uid: uid, extra: ["--video", "none", "--audio", wav])
            bots.append(bot)
            return bot
        }

        func call(_ route: String, _ body: [String: Any]) async throws -> (status: Int, json: [String: Any]) {
            try await server.call("/server/v1/channel/captions/" + route, body)
        }

        /// The stored transcript: `(uid, text)` of each final, oldest first.
        func transcript() async throws -> [(uid: String, text: String, startMs: Int, endMs: Int)] {
            let (status, json) = try await call("list", ["channel": channel])
            #expect(status == 200, "\(json)")
            return (json["captions"] as? [[String: Any]] ?? []).map {
                ($0["uid"] as? String ?? "", $0["text"] as? String ?? "", $0["start_ms"] as? Int ?? 0, $0["end_ms"] as? Int ?? 0)
            }
        }

        func stop() async {
            for bot in bots { await bot.stop() }
            for peer in peers {
                await peer.channel.leave()
                await peer.engine.destroy()
            }
            await server.stop()
        }
    }

    @Test func aSpokenSentenceIsCaptionedToEveryoneInOrderStoredAndAnnounced() async throws {
        let call = try Call(channel: "cc1")
        let viaData = try await call.listener("listener")
        let viaSocket = try await call.listener("socket-listener", dataChannel: false)
        let (status, started) = try await call.call("start", ["channel": call.channel])
        #expect(status == 200, "\(started)")
        let captionsId = (started["captions"] as? [String: Any])?["captions_id"] as? String ?? ""
        // `starting` only when the worker took longer than the start timeout to join.
        #expect(captionsId.hasPrefix("CC_") && ["running", "starting"].contains((started["captions"] as? [String: Any])?["status"] as? String ?? ""), "\(started)")
        let hook = try await call.hooks.waitFor("captions_started")
        #expect(hook.json["data.captions"] != nil && hook.signatureValid)

        let bot = try call.bot("speaker", wav: SpeechWAV.write(Self.sentence, in: call.server.directory, name: "speech.wav", silenceMs: 30_000))
        try await eventually(timeout: 120, "a final caption of the speaker (got \(viaData.all))") { !viaData.finals("speaker").isEmpty }
        await bot.stop()
        let (stopStatus, stopped) = try await call.call("stop", ["channel": call.channel])
        #expect(stopStatus == 200 && (stopped["captions"] as? [String: Any])?["status"] as? String == "stopped", "\(stopped)")
        let ended = try await call.hooks.waitFor("captions_ended")

        let received = viaData.finals("speaker")
        let stored = try await call.transcript()
        try await eventually(timeout: 30, "the WebSocket listener has every final") { viaSocket.finals("speaker").count >= stored.count }
        let heard = received.map(\.text).joined(separator: " ")
        let fraction = WordAlignment.fractionInOrder(expected: Self.sentence, heard: heard)
        let first = viaData.all.first { $0.uid == "speaker" }
        print("captions: \(viaData.all.count) captions at the listener (\(viaData.all.filter { !$0.final }.count) partials), finals \(received.map(\.text)); \(Int(fraction * 100)) % of the words in order; first caption text \"\(first?.text ?? "")\"; final \(received.first.map { "\($0.startMs)–\($0.endMs)" } ?? "-") Unix ms; stored \(stored.map(\.text)); ended reason \(ended.json["data.reason"] ?? "-"); final caption latency (last sound → arrival) \(viaData.finalLatenciesMs) ms")
        #expect(fraction >= 0.7, "heard \"\(heard)\"")
        #expect(viaData.all.allSatisfy { $0.uid == "speaker" }, "\(viaData.all)")
        // Streaming: partials while the speaker talks, before their final; finals in time order, each with a real span.
        #expect(viaData.all.contains { !$0.final && $0.uid == "speaker" && !$0.text.isEmpty }, "no partial caption: \(viaData.all)")
        if let finalIndex = viaData.all.firstIndex(where: \.final), let partialIndex = viaData.all.firstIndex(where: { !$0.final }) {
            #expect(partialIndex < finalIndex)
        }
        #expect(zip(received, received.dropFirst()).allSatisfy { $0.startMs <= $1.startMs }, "\(received)")
        #expect(received.allSatisfy { $0.startMs < $0.endMs && $0.startMs > 1_600_000_000_000 }, "\(received)")
        // The transcript is what everyone got, on either path.
        #expect(stored.map(\.uid) == received.map(\.uid) && stored.map(\.text) == received.map(\.text), "stored \(stored), received \(received)")
        #expect(stored.map { Int64($0.startMs) } == received.map(\.startMs))
        #expect(viaSocket.finals("speaker").map(\.text) == received.map(\.text), "\(viaSocket.all)")
        #expect(ended.json["data.reason"] == "stopped")
        // After the call: the transcript is still there, and captions run no more.
        let (_, after) = try await call.call("list", ["channel": call.channel, "captions_id": captionsId])
        #expect((after["captions"] as? [Any])?.count == stored.count && after["running"] == nil, "\(after)")
        await call.stop()
    }

    @Test func twoSpeakersOneAfterTheOtherAreCaptionedEachUnderTheirOwnUid() async throws {
        let call = try Call(channel: "cc2")
        let listener = try await call.listener("listener")
        #expect(try await call.call("start", ["channel": call.channel]).status == 200)
        let dir = call.server.directory
        let alice = try call.bot("alice", wav: SpeechWAV.write(Self.sentence, in: dir, name: "alice.wav", silenceMs: 30_000))
        try await eventually(timeout: 120, "alice's caption (got \(listener.all))") { !listener.finals("alice").isEmpty }
        await alice.stop()
        let bob = try call.bot("bob", wav: SpeechWAV.write(Self.second, in: dir, name: "bob.wav", silenceMs: 30_000))
        try await eventually(timeout: 120, "bob's caption (got \(listener.all))") { !listener.finals("bob").isEmpty }
        await bob.stop()
        #expect(try await call.call("stop", ["channel": call.channel]).status == 200)
        let heardAlice = listener.finals("alice").map(\.text).joined(separator: " ")
        let heardBob = listener.finals("bob").map(\.text).joined(separator: " ")
        let stored = try await call.transcript()
        print("captions: alice \"\(heardAlice)\", bob \"\(heardBob)\"; stored \(stored.map { "\($0.uid): \($0.text)" }); final caption latency (last sound → arrival) \(listener.finalLatenciesMs) ms")
        #expect(WordAlignment.fractionInOrder(expected: Self.sentence, heard: heardAlice) >= 0.7, "alice: \(heardAlice)")
        #expect(WordAlignment.fractionInOrder(expected: Self.second, heard: heardBob) >= 0.7, "bob: \(heardBob)")
        #expect(WordAlignment.fractionInOrder(expected: Self.second, heard: heardAlice) < 0.3, "alice has bob's words: \(heardAlice)")
        #expect(listener.all.allSatisfy { ["alice", "bob"].contains($0.uid) }, "\(listener.all)")
        // Stored in time order: alice's turn before bob's.
        #expect(stored.map(\.uid) == listener.finals("alice").map { _ in "alice" } + listener.finals("bob").map { _ in "bob" }, "\(stored)")
        await call.stop()
    }

    @Test func aSpeakerLeavingMidSentenceAndASilentOneMakeNoStrayCaption() async throws {
        let call = try Call(channel: "cc3")
        let listener = try await call.listener("listener")
        let dir = call.server.directory
        _ = try call.bot("silent", wav: SpeechWAV.write([Int16](repeating: 0, count: 16_000), rate: 16_000, in: dir, name: "silence.wav"))
        #expect(try await call.call("start", ["channel": call.channel]).status == 200)
        let leaver = try call.bot("leaver", wav: SpeechWAV.write(Self.second, in: dir, name: "leaver.wav", silenceMs: 30_000, leadMs: 1_000))
        try await eventually(timeout: 120, "a partial caption of the leaver (got \(listener.all))") { !listener.captions("leaver").isEmpty }
        await leaver.stop()
        try await eventually(timeout: 60, "the leaver is gone") { listener.left.contains("leaver") }
        // The worker lives on: the next speaker is captioned.
        let next = try call.bot("next", wav: SpeechWAV.write(Self.sentence, in: dir, name: "next.wav", silenceMs: 30_000))
        try await eventually(timeout: 120, "the next speaker's caption (got \(listener.all))") { !listener.finals("next").isEmpty }
        await next.stop()
        let (_, list) = try await call.call("list", ["channel": call.channel])
        #expect((list["running"] as? [String: Any])?["restarts"] as? Int == 0, "the worker was restarted: \(list)")
        #expect(try await call.call("stop", ["channel": call.channel]).status == 200)
        let stored = try await call.transcript()
        let leaverWords = listener.captions("leaver").map(\.text)
        print("captions: the leaver's \(leaverWords), next \(listener.finals("next").map(\.text)); stored \(stored.map { "\($0.uid): \($0.text)" })")
        #expect(listener.all.allSatisfy { ["leaver", "next"].contains($0.uid) }, "stray captions: \(listener.all)")
        #expect(listener.finals("leaver").count <= 1, "\(listener.finals("leaver"))")
        #expect(stored.filter { $0.uid == "leaver" }.count == listener.finals("leaver").count)
        #expect(WordAlignment.fractionInOrder(expected: Self.sentence, heard: listener.finals("next").map(\.text).joined(separator: " ")) >= 0.7)
        await call.stop()
    }

    @Test func aKilledWorkerIsRestartedAndCaptionsGoOn() async throws {
        let call = try Call(channel: "cc5")
        let listener = try await call.listener("listener")
        #expect(try await call.call("start", ["channel": call.channel]).status == 200)
        let workers = EgressWorkers.pids()
        #expect(workers.count == 1, "\(workers)")
        for pid in workers { kill(pid, SIGKILL) }
        try await eventually(timeout: 60, "a new worker runs") {
            let (_, list) = try await call.call("list", ["channel": call.channel])
            let running = list["running"] as? [String: Any]
            return running?["restarts"] as? Int == 1 && running?["status"] as? String == "running"
        }
        _ = try call.bot("speaker", wav: SpeechWAV.write(Self.sentence, in: call.server.directory, name: "speech.wav", silenceMs: 30_000))
        try await eventually(timeout: 120, "a final caption after the restart (got \(listener.all))") { !listener.finals("speaker").isEmpty }
        let heard = listener.finals("speaker").map(\.text).joined(separator: " ")
        print("captions: after a restart heard \"\(heard)\"")
        #expect(WordAlignment.fractionInOrder(expected: Self.sentence, heard: heard) >= 0.7, "\(heard)")
        #expect(try await call.call("stop", ["channel": call.channel]).status == 200)
        _ = try await call.hooks.waitFor("captions_ended")
        // One run of captions: announced once, not per worker.
        #expect(call.hooks.deliveries.filter { $0.event == "captions_started" }.count == 1)
        await call.stop()
    }

    /// docs/captions.md, "A server restart": `kill -9` of the server (and its worker) keeps
    /// the stored transcript, and the restarted server resumes the captions under the same id
    /// (one restart more) once it listens: a speaker after the restart is captioned, and the
    /// transcript goes on after what was stored before.
    @Test func captionsSurviveKillDashNineOfTheServerAndResume() async throws {
        let data = try TemporaryDirectory(prefix: "srtc-captions-kill9")
        defer { data.cleanUp() }
        let directory = try TemporaryDirectory(prefix: "srtc-captions-wav")
        defer { directory.cleanUp() }
        // A second of silence first: the worker hears each bot from its first word.
        let wav = try SpeechWAV.write(Self.sentence, in: directory, name: "speech.wav", silenceMs: 30_000, leadMs: 1_000)
        let server = try await EgressCrashTests.server(data.path)
        func listener(_ server: ServerProcess) async throws -> (SDKPeer, CaptionCollector) {
            let (_, grant) = try await server.call("/server/v1/channel/grant", ["channel": "cc6", "uid": "listener"])
            let peer = SDKPeer()
            let collector = CaptionCollector()
            peer.channel.delegates.add(delegate: collector)
            try await peer.channel.join(url: server.httpBase, token: try #require(grant["token"] as? String))
            return (peer, collector)
        }
        let (peer, before) = try await listener(server)
        let (_, started) = try await server.call("/server/v1/channel/captions/start", ["channel": "cc6"])
        let captionsId = try #require((started["captions"] as? [String: Any])?["captions_id"] as? String, "\(started)")
        let bot = try BotProcess(url: server.httpBase, channel: "cc6", uid: "speaker", extra: ["--video", "none", "--audio", wav])
        try await eventually(timeout: 120, "a final caption (got \(before.all))") { !before.finals("speaker").isEmpty }
        // The machine dies: the server stops still, its worker and it are killed.
        server.signal(SIGSTOP)
        for pid in EgressWorkers.pids(parent: try #require(server.pid)) { kill(pid, SIGKILL) }
        server.signal(SIGKILL)
        await server.waitForExit()
        await bot.stop()
        await peer.channel.leave()
        await peer.engine.destroy()

        let again = try await EgressCrashTests.server(data.path)
        func list() async throws -> [String: Any] {
            let (status, json) = try await again.call("/server/v1/channel/captions/list", ["channel": "cc6"])
            #expect(status == 200, "\(json)")
            return json
        }
        let storedBefore = (try await list()["captions"] as? [[String: Any]] ?? []).compactMap { $0["text"] as? String }
        #expect(Array(storedBefore.prefix(before.finals("speaker").count)) == before.finals("speaker").map(\.text), "\(storedBefore)")
        // Resumed under the same id, as one restart more (once the server listens: not at once).
        var resumed: [String: Any]?
        try await eventually(timeout: 30, "the captions resumed; log: \(again.log.suffix(2000))") {
            resumed = try await list()["running"] as? [String: Any]
            return resumed != nil
        }
        #expect(resumed?["captions_id"] as? String == captionsId && resumed?["restarts"] as? Int == 1, "\(String(describing: resumed))")

        let (peerAfter, after) = try await listener(again)
        let second = try BotProcess(url: again.httpBase, channel: "cc6", uid: "speaker", extra: ["--video", "none", "--audio", wav])
        try await eventually(timeout: 120, "a final caption after the restart (got \(after.all))") { !after.finals("speaker").isEmpty }
        await second.stop()
        let (stopStatus, stopped) = try await again.call("/server/v1/channel/captions/stop", ["channel": "cc6"])
        #expect(stopStatus == 200 && (stopped["captions"] as? [String: Any])?["captions_id"] as? String == captionsId, "\(stopped)")
        let final = try await list()
        let stored = (final["captions"] as? [[String: Any]] ?? []).filter { $0["captions_id"] as? String == captionsId }.compactMap { $0["text"] as? String }
        print("captions: before kill -9 \(before.finals("speaker").map(\.text)), after the restart \(after.finals("speaker").map(\.text)); stored \(stored)")
        #expect(final["running"] == nil, "\(final)")
        #expect(stored == storedBefore + after.finals("speaker").map(\.text), "\(stored)")
        // The sentence's words, not the 70 % the quiet tests ask: this one runs beside browsers in make test.
        #expect(WordAlignment.fractionInOrder(expected: Self.sentence, heard: after.finals("speaker").map(\.text).joined(separator: " ")) >= 0.5)
        await peerAfter.channel.leave()
        await peerAfter.engine.destroy()
        again.signal(SIGTERM)
        await again.waitForExit()
    }

    @Test func badRequestsGetTheirNamedErrors() async throws {
        let call = try Call(channel: "cc4")
        func expectError(_ route: String, _ body: [String: Any], _ status: Int, _ code: Int, sourceLocation: SourceLocation = #_sourceLocation) async throws {
            let (got, json) = try await call.call(route, body)
            #expect(got == status && json["code"] as? Int == code, "\(route) \(body): \(got) \(json)", sourceLocation: sourceLocation)
        }
        try await expectError("start", ["channel": call.channel], 404, 40401)            // nobody in it
        try await expectError("stop", ["channel": call.channel], 409, 40901)             // not running
        try await expectError("start", ["channel": "bad name!"], 400, 40002)
        try await expectError("start", [:], 400, 40001)
        try await expectError("list", ["channel": call.channel, "limit": 0], 400, 40002)
        try await expectError("list", ["channel": call.channel, "captions_id": "../x"], 400, 40002)
        _ = try await call.listener("listener")
        try await expectError("start", ["channel": call.channel, "language": "xx-YY"], 400, 40002)
        let (status, json) = try await call.call("start", ["channel": call.channel, "language": "en-us"])
        #expect(status == 200 && (json["captions"] as? [String: Any])?["language"] as? String == "en-US", "\(json)")
        try await expectError("start", ["channel": call.channel], 409, 40902)            // already running
        #expect(try await call.call("stop", ["channel": call.channel]).status == 200)
        try await expectError("stop", ["channel": call.channel], 409, 40901)
        let (_, list) = try await call.call("list", ["channel": call.channel])
        #expect((list["captions"] as? [Any])?.isEmpty == true && list["running"] == nil, "\(list)")
        await call.stop()
    }
}

/// The `caption` events one participant receives, in order, and who left.
final class CaptionCollector: ChannelDelegate, @unchecked Sendable {
    private let state = Mutex<(captions: [Caption], arrivals: [Int64], left: [String])>(([], [], []))
    /// Kept alive with its collector.
    var peer: SDKPeer?

    func channel(_ channel: Channel, didReceiveCaption caption: Caption) {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        state.withLock { $0.captions.append(caption); $0.arrivals.append(now) }
    }

    func channel(_ channel: Channel, userDidLeave uid: String, reason: DisconnectReason) {
        state.withLock { $0.left.append(uid) }
    }

    var all: [Caption] { state.withLock { $0.captions } }
    var left: [String] { state.withLock { $0.left } }
    /// Milliseconds from the end of each final's last recognised sound (the worker's clock) to its
    /// arrival here (this process's clock: the same machine).
    var finalLatenciesMs: [Int64] {
        state.withLock { s in zip(s.captions, s.arrivals).filter { $0.0.final }.map { $0.1 - $0.0.endMs } }
    }
    func captions(_ uid: String) -> [Caption] { all.filter { $0.uid == uid } }
    func finals(_ uid: String) -> [Caption] { captions(uid).filter(\.final) }
}
