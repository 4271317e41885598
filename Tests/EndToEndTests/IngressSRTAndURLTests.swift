import EgressServer
import Foundation
import MediaTestSupport
import Processes
import RTCMedia
import RTCNet
import SRTC
import SRTCProtocol
import SRTCTestSupport
import TestRandom
import TestWait
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// SRT and URL ingest (a file and an HLS playlist pulled over HTTP) and the ingress API end to end
/// (docs/ingress.md), with `IngressTests`' pattern, pushes and viewer. Serialized like
/// `IngressTests`, but a suite of its own so that the two run side by side: as one serialized suite
/// of ten tests, each waiting again for one of `make test`'s test slots, they ran alone for the last
/// 33 s of its light pass.
@Suite(.serialized) struct IngressSRTAndURLTests {
    @Test func srtPushIsPublishedAndAWrongPassphraseIsRefusedAtTheHandshake() async throws {
        let hooks = try TestWebhookReceiver()
        let server = try EgressTestServer(webhookURL: hooks.url)
        let pattern = try IngressTests.pattern(server.directory, frames: 300)
        let (status, json) = try await server.call("/server/v1/ingress/create", ["channel": "show", "uid": "cam", "kind": "srt"])
        let created = try #require(json["ingress"] as? [String: Any], "\(status) \(json)")
        let id = try #require(created["ingress_id"] as? String)
        let url = try #require(created["url"] as? String)
        let key = try #require(created["stream_key"] as? String)
        #expect(url.hasPrefix("srt://127.0.0.1:") && url.hasSuffix("?streamid=\(key)&passphrase=\(key)"), "\(url)")
        let (viewer, subscriber) = try await IngressTests.viewer(server, channel: "show")

        // Another passphrase fails SRT's handshake (BADSECRET): the caller gives up, nobody appears.
        let wrong = try IngressTests.push(pattern, to: url.replacingOccurrences(of: key, with: String(key.reversed())), format: "mpegts",
                                  log: server.directory.file("wrong.log"))
        let wrongStatus = await wrong.waitForExit(timeout: 60)
        print("ingress: an SRT push with a wrong passphrase exited with \(wrongStatus)")
        #expect(wrongStatus != 0)
        #expect(try await IngressTests.ingress(server, id)?["sessions"] as? Int == 0)

        // Datagrams that are not SRT are not a caller.
        var random = SeededRandom(seed: 8)
        let port = try #require(UInt16(url.split(separator: ":")[2].split(separator: "?")[0]))
        for size in [1, 16, 64, 1_316] { IngressTests.send(random.bytes(size), toPort: port, datagram: true) }

        // The right one.
        let pusher = try await IngressTests.pushUntilTaken(pattern, to: url, format: "mpegts", hooks: hooks, count: 1, log: server.directory.file("push.log"))
        try await viewer.events.wait(for: "user+ cam")
        let numbers = try await IngressTests.decoded(subscriber.collector, after: 0, atLeast: 45, "SRT push")
        print("ingress: SRT push, \(numbers.count) frames decoded, \(numbers.first!)…\(numbers.last!), \(frameGaps(numbers).missing) missing")
        #expect(frameGaps(numbers).ordered, "\(numbers)")
        try await eventually("the tone") { subscriber.collector.toneFrequency.map { abs($0 - 440) < 15 } ?? false }

        // Killing the caller ends the push (SRT notices the silent peer) with the webhook.
        pusher.signal(SIGKILL)
        _ = await pusher.waitForExit(timeout: 10)
        let ended = try await hooks.waitFor("ingress_ended")
        print("ingress: SRT push ended with \(ended.data["reason"] ?? "?")")
        try await viewer.events.wait(for: "user- cam client_leave")
        _ = try await server.call("/server/v1/ingress/delete", ["ingress_id": id])
        await viewer.channel.leave()
        await viewer.engine.destroy()
        await server.stop()
        await hooks.shutdown()
    }

    @Test func aURLIsPulledPublishedInRealTimeAndTheIngressEndsWithIt() async throws {
        let hooks = try TestWebhookReceiver()
        let server = try EgressTestServer(webhookURL: hooks.url)
        let pattern = try IngressTests.pattern(server.directory, frames: 90)
        // The clip as an FLV file (no seeking needed), served by a small HTTP server.
        let clip = server.directory.file("clip.flv")
        let encoder = try ChildProcess("/usr/bin/ffmpeg", IngressTests.encode(pattern).filter { $0 != "-re" } + ["-f", "flv", clip],
                                       log: server.directory.file("encode.log"))
        #expect(await encoder.waitForExit(timeout: 120) == 0)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: clip)))
        let files = HTTPServer(configuration: .init(port: 0, loopCount: 1)) { request in
            request.path == "/clip.flv" ? HTTPResponse(status: 200, headers: HTTPHeaders([("Content-Type", "video/x-flv")]), body: bytes)
                : .text(404, "no")
        }
        try files.start()
        let (viewer, subscriber) = try await IngressTests.viewer(server, channel: "show")

        // A scheme that reads the server's own files is refused.
        let (refused, refusal) = try await server.call("/server/v1/ingress/create",
                                                       ["channel": "show", "uid": "clip", "kind": "url", "url": "file://" + clip])
        #expect(refused == 400 && refusal["code"] as? Int == 40002, "\(refusal)")

        try await IngressTests.pull("http://127.0.0.1:\(files.port)/clip.flv", as: "clip", server: server, hooks: hooks, viewer: viewer, subscriber: subscriber)
        await viewer.channel.leave()
        await viewer.engine.destroy()
        await files.shutdown()
        await server.stop()
        await hooks.shutdown()
    }

    /// `--ingress-ports`: listeners take ports of the range only, one ingress per port (a
    /// listener between two pushes does not lend its port), and a full range is `limit_reached`.
    @Test func listenersTakePortsOfTheConfiguredRangeOnly() async throws {
        let port = try freeLoopbackPort()
        let server = try EgressTestServer(ingressPorts: port...port)
        let (status, json) = try await server.call("/server/v1/ingress/create", ["channel": "show", "uid": "a", "kind": "rtmp"])
        let first = try #require(json["ingress"] as? [String: Any], "\(status) \(json)")
        #expect((first["url"] as? String)?.hasPrefix("rtmp://127.0.0.1:\(port)/live/") == true, "\(first)")
        let (full, refusal) = try await server.call("/server/v1/ingress/create", ["channel": "show", "uid": "b", "kind": "srt"])
        #expect(full == 429 && refusal["code"] as? Int == 42901, "\(full) \(refusal)")
        let (deleted, _) = try await server.call("/server/v1/ingress/delete", ["ingress_id": first["ingress_id"] as! String])
        #expect(deleted == 200)
        let (again, json2) = try await server.call("/server/v1/ingress/create", ["channel": "show", "uid": "b", "kind": "srt"])
        let second = try #require(json2["ingress"] as? [String: Any], "\(again) \(json2)")
        #expect((second["url"] as? String)?.hasPrefix("srt://127.0.0.1:\(port)?streamid=") == true, "\(second)")
        // Bad bodies get their named errors.
        let bad: [([String: Any], Int)] = [(["channel": "show", "uid": "c", "kind": "rtmps"], 40002),
                                           (["channel": "show", "uid": "c", "kind": "url"], 40002),
                                           (["channel": "show", "uid": "c", "kind": "rtmp", "url": "rtmp://x/y"], 40002),
                                           (["channel": "show", "uid": "b", "kind": "rtmp"], 40902)]
        for (body, code) in bad {
            let (status, answer) = try await server.call("/server/v1/ingress/create", body)
            #expect(answer["code"] as? Int == code, "\(body): \(status) \(answer)")
        }
        let (missing, answer) = try await server.call("/server/v1/ingress/delete", ["ingress_id": "IN_nothere"])
        #expect(missing == 404 && answer["code"] as? Int == 40401, "\(answer)")
        await server.stop()
    }

    /// `srtc ingress create|list|delete` against the server: the JSON answers it prints.
    @Test func theCLICreatesListsAndDeletesIngresses() async throws {
        let server = try EgressTestServer()
        func srtc(_ arguments: [String]) async throws -> (status: Int32, json: [String: Any]) {
            let process = try ChildProcess(EgressTestServer.buildDirectory + "/srtc", ["ingress"] + arguments + ["--url", server.url],
                                           environment: ["SRTC_APP_ID": TestServer.appId, "SRTC_APP_KEY": TestServer.appKey], pipeOutput: true)
            let output = await onThread { process.output!.readDataToEndOfFile() }
            let status = await process.waitForExit(timeout: 30)
            return (status, (try? JSONSerialization.jsonObject(with: output)) as? [String: Any] ?? [:])
        }
        let (created, json) = try await srtc(["create", "--channel", "show", "--uid", "obs", "--kind", "srt", "--simulcast"])
        let ingress = try #require(json["ingress"] as? [String: Any], "\(created) \(json)")
        let id = try #require(ingress["ingress_id"] as? String)
        #expect(created == 0 && ingress["kind"] as? String == "srt" && (ingress["stream_key"] as? String)?.count == 24)
        let (listed, list) = try await srtc(["list", "--channel", "show"])
        #expect(listed == 0 && (list["ingresses"] as? [[String: Any]])?.map { $0["ingress_id"] as? String } == [id], "\(list)")
        let (deleted, answer) = try await srtc(["delete", "--id", id])
        #expect(deleted == 0 && (answer["ingress"] as? [String: Any])?["status"] as? String == "ended", "\(answer)")
        let (refused, error) = try await srtc(["delete", "--id", id])
        #expect(refused == 1 && error["code"] as? Int == 40401, "\(error)")
        await server.stop()
    }
}
