import Foundation
import MediaTestSupport
import Processes
import RTCNet
import SRTC
import SRTCTestSupport
import TestWait
import Testing

extension IngressSRTAndURLTests {
    /// docs/ingress.md, "URL": an HLS playlist over HTTP is pulled like a file (issue 32 names HLS,
    /// MP4 and RTMP URLs; `aURLIsPulledPublishedInRealTimeAndTheIngressEndsWithIt` pulls a file).
    /// ffmpeg cuts the pattern and the tone into 1 s MPEG-TS segments with an `#EXT-X-ENDLIST`
    /// playlist, served by a small HTTP server; the viewer decodes the numbers in order, hears the
    /// tone, and the ingress ends with the playlist.
    @Test func anHLSPlaylistIsPulledPublishedAndTheIngressEndsWithIt() async throws {
        let hooks = try TestWebhookReceiver()
        let server = try EgressTestServer(webhookURL: hooks.url)
        let pattern = try IngressTests.pattern(server.directory, frames: 90)
        let hls = server.directory.file("hls")
        try FileManager.default.createDirectory(atPath: hls, withIntermediateDirectories: true)
        let encoder = try ChildProcess("/usr/bin/ffmpeg", IngressTests.encode(pattern).filter { $0 != "-re" }
                                       + ["-f", "hls", "-hls_time", "1", "-hls_list_size", "0", "-hls_playlist_type", "vod", hls + "/index.m3u8"],
                                       log: server.directory.file("encode.log"))
        #expect(await encoder.waitForExit(timeout: 120) == 0)
        let files = HTTPServer(configuration: .init(port: 0, loopCount: 1)) { request in
            let name = String(request.path.dropFirst("/hls/".count))
            guard request.path.hasPrefix("/hls/"), !name.contains("/"), !name.hasPrefix("."),
                  let bytes = FileManager.default.contents(atPath: hls + "/" + name) else { return .text(404, "no") }
            let type = name.hasSuffix(".m3u8") ? "application/vnd.apple.mpegurl" : "video/mp2t"
            return HTTPResponse(status: 200, headers: HTTPHeaders([("Content-Type", type)]), body: [UInt8](bytes))
        }
        try files.start()
        let (viewer, subscriber) = try await IngressTests.viewer(server, channel: "show")

        try await IngressTests.pull("http://127.0.0.1:\(files.port)/hls/index.m3u8", as: "hls", server: server, hooks: hooks, viewer: viewer,
                            subscriber: subscriber)
        await viewer.channel.leave()
        await viewer.engine.destroy()
        await files.shutdown()
        await server.stop()
        await hooks.shutdown()
    }
}
