import Foundation
import MediaTestSupport
import SRTC
import SRTCLab
import SRTCTestSupport
import TestWait
import Testing

/// Egress on a server that speaks only TLS: its workers reach it at 127.0.0.1, which its
/// certificate (issued for a name) does not carry, so they trust the server's own certificate
/// file as it is (`WorkerTask.serverCertificate`). In the egress suites' serial pass (`make test`).
@Suite(.serialized, .enabled(if: TestCertificateAuthority.openssl != nil, "needs the openssl command line tool"))
struct EgressTLSTests {
    @Test func aRecordingWorkerJoinsOverTLSAndRecordsTheTrack() async throws {
        let ca = try await offPool { try TestCertificateAuthority() }
        defer { ca.remove() }
        // A name only, as a public certificate would be: `localhost` for the test's own clients.
        let issued = try await offPool { try ca.issue(file: "server", commonName: "localhost", ipAddresses: [], dnsNames: ["localhost"], serial: 0x3003) }
        let server = try EgressTestServer(tls: (issued.certificate, issued.key))
        #expect(server.url.hasPrefix("https://127.0.0.1:"))
        let publisher = SDKPeer(trustedCAFile: ca.certificate)
        try await publisher.channel.join(url: "https://localhost:\(server.server.app.httpPort)", token: server.token(uid: "alice", channel: "tlsrec"))
        let video = publisher.engine.createLocalCustomVideoTrack(desc: "camera_big", preset: VideoPreset(width: 320, height: 180, frameRate: 15, maxBitrate: 300_000))
        try await publisher.channel.publishLocalTrack(video)
        let pusher = try SDKMediaPusher(video: video, audio: nil, width: 320, height: 180, fps: 15)
        defer { pusher.stop() }

        let recording = try await EgressRecordingTests.start(server, ["channel": "tlsrec", "uid": "alice", "desc": "camera_big"])
        #expect(recording["status"] as? String == "recording", "the worker joined over wss: \(recording)")
        let from = pusher.framesPushed
        try await eventually("3 s of frames pushed while recording") { pusher.framesPushed >= from + 45 }
        let finished = try await EgressRecordingTests.stop(server, recording)
        #expect(finished["status"] as? String == "finished", "\(finished)")
        let file = server.recordings + "/" + (finished["file"] as? String ?? "")
        let numbers = try await offPool { try DecodedMediaFile(url: file) }.frameNumbers
        #expect(numbers.count >= 20, "\(numbers.count) frames recorded")
        #expect(frameGaps(numbers).ordered)
        pusher.stop()
        await publisher.channel.leave()
        await server.stop()
    }
}
