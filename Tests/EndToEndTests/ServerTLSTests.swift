import Foundation
import RTCNet
import SRTC
import SRTCLab
import SRTCProtocol
import SRTCTestSupport
import TestWait
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// HTTPS and WSS served by a real `srtc-server` process with `--tls-cert`/`--tls-key` (issue 25,
/// docs/deploy.md "HTTPS without a proxy"): certificates from a test CA made with the `openssl`
/// command line, clients that verify them, a renewal picked up on a real `SIGHUP`, the redirect
/// port, and the start refused with the reason when the files are wrong.
@Suite(.serialized, .enabled(if: TestCertificateAuthority.openssl != nil, "needs the openssl command line tool"))
struct ServerTLSTests {
    /// A CA, a certificate for 127.0.0.1 with serial `0x1001`, and a server process presenting it.
    private struct Setup {
        let ca: TestCertificateAuthority
        let issued: TestCertificateAuthority.Issued
        let server: ServerProcess

        init(serial: UInt64 = 0x1001, arguments: [String] = []) async throws {
            let ca = try await offPool { try TestCertificateAuthority() }
            let issued = try await offPool { try ca.issue(file: "server", commonName: "srtc test server", serial: serial) }
            self.ca = ca
            self.issued = issued
            server = ServerProcess(arguments: ["--tls-cert", issued.certificate, "--tls-key", issued.key, "--log-level", "info"] + arguments,
                                   environment: ["SRTC_APP_ID": TestServer.appId, "SRTC_APP_KEY": TestServer.appKey])
            try await server.start()
        }

        var httpsBase: String { "https://127.0.0.1:\(server.httpPort)" }

        func finish() async {
            await server.stop()
            server.removeData()
            ca.remove()
        }
    }

    private func token(uid: String, channel: String) -> String {
        let now = Int64(Date().timeIntervalSince1970)
        return AccessToken.sign(TokenClaims(iss: TestServer.appId, sub: uid, iat: now, nbf: now, exp: now + 3600, jti: UUID().uuidString,
                                            grant: ChannelGrant(channel: channel, publish: true, subscribe: true, publishData: true)),
                                key: TestServer.appKey)
    }

    /// Two SDK engines trusting the test CA join `channel` over wss; A publishes a test pattern
    /// that B subscribes to (B's frames land in `subscriber.collector`).
    private func call(on setup: Setup, channel: String) async throws -> (SDKPeer, SDKPeer, SDKAutoSubscriber, SDKMediaPusher) {
        let a = SDKPeer(trustedCAFile: setup.ca.certificate), b = SDKPeer(trustedCAFile: setup.ca.certificate)
        let subscriber = SDKAutoSubscriber()
        b.channel.delegates.add(delegate: subscriber)
        try await a.channel.join(url: setup.httpsBase, token: token(uid: "a", channel: channel))
        try await b.channel.join(url: setup.httpsBase, token: token(uid: "b", channel: channel))
        let video = a.engine.createLocalCustomVideoTrack(desc: "camera_big", preset: VideoPreset(width: 320, height: 180, frameRate: 30, maxBitrate: 400_000))
        try await a.channel.publishLocalTrack(video)
        return (a, b, subscriber, try SDKMediaPusher(video: video, audio: nil, width: 320, height: 180))
    }

    @Test func healthzOverHTTPSVerifiesAgainstTheTestCAAndNotWithoutIt() async throws {
        let setup = try await Setup()
        let trusting = HTTPClient(configuration: .init(tls: .trusting(caFile: setup.ca.certificate)))
        let health = try await trusting.get(setup.httpsBase + "/healthz", timeout: .seconds(10))
        #expect(health.status == 200)
        #expect(String(decoding: health.body, as: UTF8.self).contains(#""status":"ok""#))
        // The banner names https and wss.
        #expect(setup.server.log.contains("srtc-server listening on https://127.0.0.1:\(setup.server.httpPort) (HTTPS)"))
        #expect(setup.server.log.contains("signaling: wss://127.0.0.1:\(setup.server.httpPort)/rtc/v1/ws"))
        #expect(setup.server.log.contains("serial \(setup.issued.serial)"))

        // The system trust store does not know the test CA.
        await #expect { _ = try await HTTPClient().get(setup.httpsBase + "/healthz", timeout: .seconds(10)) } throws: { error in
            guard case NetError.tls(let reason) = error else { return false }
            return reason.contains("certificate verification failed")
        }
        // Plain HTTP on the TLS port gets no HTTP answer.
        await #expect(throws: (any Error).self) {
            _ = try await HTTPClient().get("http://127.0.0.1:\(setup.server.httpPort)/healthz", timeout: .seconds(10))
        }
        await setup.finish()
    }

    @Test func sdkEnginesJoinOverWSSAndDecodeEachOthersVideo() async throws {
        let setup = try await Setup()
        let (a, b, subscriber, pusher) = try await call(on: setup, channel: "tls")
        defer { pusher.stop() }
        try await eventually("b decodes 30 of a's frames over the wss-negotiated call") { subscriber.collector.numbers.count >= 30 }
        #expect(frameGaps(subscriber.collector.numbers).ordered)

        // An engine without the CA refuses the server, as a browser would.
        let stranger = SDKPeer()
        await #expect { try await stranger.channel.join(url: setup.httpsBase, token: token(uid: "c", channel: "tls")) } throws: { error in
            "\(error)".contains("certificate verification failed")
        }
        pusher.stop()
        await a.channel.leave()
        await b.channel.leave()
        await setup.finish()
    }

    @Test func sighupServesARenewedCertificateToNewConnectionsWhileTheCallGoesOn() async throws {
        let setup = try await Setup()
        let port = setup.server.httpPort
        #expect(try await offPool { try TestCertificateAuthority.servedSerial(host: "127.0.0.1", port: port) } == setup.issued.serial)
        let (a, b, subscriber, pusher) = try await call(on: setup, channel: "renew")
        defer { pusher.stop() }
        try await eventually("b decodes a's video") { subscriber.collector.frameCount >= 10 }

        // The renewal: a new key and certificate written over the old files, as certbot's deploy hook does.
        let renewed = try await offPool { try setup.ca.issue(file: "renewed", commonName: "srtc test server", serial: 0x2002) }
        try FileManager.default.removeItem(atPath: setup.issued.certificate)
        try FileManager.default.removeItem(atPath: setup.issued.key)
        try FileManager.default.copyItem(atPath: renewed.certificate, toPath: setup.issued.certificate)
        try FileManager.default.copyItem(atPath: renewed.key, toPath: setup.issued.key)
        setup.server.signal(SIGHUP)
        try await eventually("the reload is logged; log: \(setup.server.log.suffix(1500))") {
            setup.server.log.contains("SIGHUP: reloaded") && setup.server.log.contains("serial \(renewed.serial)")
        }
        #expect(try await offPool { try TestCertificateAuthority.servedSerial(host: "127.0.0.1", port: port) } == renewed.serial)
        let health = try await HTTPClient(configuration: .init(tls: .trusting(caFile: setup.ca.certificate))).get(setup.httpsBase + "/healthz")
        #expect(health.status == 200)

        // The call made before goes on: its WebSocket carries a message, its media keeps coming, nobody reconnected.
        let before = subscriber.collector.frameCount
        try await a.channel.sendCustomMessage("after the renewal")
        try await b.events.wait(for: "message a: after the renewal")
        try await eventually("b decodes more frames after the reload") { subscriber.collector.frameCount >= before + 30 }
        #expect(!a.events.events.contains("reconnecting") && !b.events.events.contains("reconnecting"))

        // A broken renewal is refused: the certificate in use stays.
        try Data("not a certificate\n".utf8).write(to: URL(fileURLWithPath: setup.issued.certificate))
        setup.server.signal(SIGHUP)
        try await eventually("the refusal is logged; log: \(setup.server.log.suffix(1500))") {
            setup.server.log.contains("SIGHUP: kept the certificate in use")
        }
        #expect(setup.server.log.contains("cannot load certificate chain \(setup.issued.certificate)"))
        #expect(try await offPool { try TestCertificateAuthority.servedSerial(host: "127.0.0.1", port: port) } == renewed.serial)
        try await a.channel.sendCustomMessage("after the refusal")
        try await b.events.wait(for: "message a: after the refusal")
        pusher.stop()
        await a.channel.leave()
        await b.channel.leave()
        await setup.finish()
    }

    /// The package's unit sends SIGHUP on `systemctl reload` whether TLS is on or not.
    @Test func sighupWithoutTLSLeavesThePlainServerRunning() async throws {
        let server = ServerProcess()
        defer { server.removeData() }
        try await server.start()
        server.signal(SIGHUP)
        try await eventually("the SIGHUP is logged; log: \(server.log.suffix(1000))") { server.log.contains("SIGHUP: nothing to reload (TLS is off)") }
        #expect(server.isRunning)
        #expect(try await HTTPClient().get(server.httpBase + "/healthz").status == 200)
        await server.stop()
    }

    @Test func theRedirectPortAnswers308ToTheSameTargetOnHTTPS() async throws {
        let setup = try await Setup(arguments: ["--http-redirect-port", "0"])
        let line = try #require(setup.server.log.split(separator: "\n").first { $0.contains("redirects to") })
        let redirectPort = try #require(line.split(separator: " ").first { $0.hasPrefix("http://") }
            .flatMap { $0.split(separator: ":").last }.flatMap { UInt16($0) })
        let client = HTTPClient()
        let plain = "http://127.0.0.1:\(redirectPort)"
        let get = try await client.get(plain + "/meet/?room=42")
        #expect(get.status == 308)
        #expect(get.headers["Location"] == "https://127.0.0.1:\(setup.server.httpPort)/meet/?room=42")
        // The name the client used is kept, its port replaced; a POST keeps its method under 308.
        let post = try await client.post(plain + "/server/v1/channel/grant", headers: ["Host": "rtc.example.com:80"], body: Array("{}".utf8))
        #expect(post.status == 308)
        #expect(post.headers["Location"] == "https://rtc.example.com:\(setup.server.httpPort)/server/v1/channel/grant")
        // Where it points is served.
        let target = try #require(get.headers["Location"])
        let followed = try await HTTPClient(configuration: .init(tls: .trusting(caFile: setup.ca.certificate))).get(target)
        #expect(followed.status == 404 || followed.status == 200)
        await setup.finish()
    }

    @Test func aWrongKeyOrAMissingFileStopsTheStartWithTheReason() async throws {
        let ca = try await offPool { try TestCertificateAuthority() }
        defer { ca.remove() }
        let issued = try await offPool { try ca.issue(file: "server", commonName: "srtc test server", serial: 7) }
        let stray = try await offPool { try ca.strayKey(file: "stray") }
        let cases: [([String], String)] = [
            (["--tls-cert", issued.certificate, "--tls-key", stray], "private key \(stray) does not match the certificate \(issued.certificate)"),
            (["--tls-cert", ca.directory + "/missing.pem", "--tls-key", issued.key], "cannot load certificate chain \(ca.directory)/missing.pem"),
            (["--tls-cert", issued.certificate, "--tls-key", ca.directory + "/missing.key"], "cannot load private key \(ca.directory)/missing.key"),
            (["--tls-cert", issued.certificate], "set both --tls-cert and --tls-key"),
            (["--http-redirect-port", "0"], "--http-redirect-port needs TLS on"),
        ]
        for (arguments, reason) in cases {
            let server = ServerProcess(arguments: arguments)
            defer { server.removeData() }
            do {
                try await server.start()
                Issue.record("started with \(arguments)")
                await server.stop()
            } catch {
                #expect("\(error)".contains(reason), "\(arguments): \(error)")
            }
        }
    }
}
