// interop-echo: the Swift end of interop/test_browser_echo.py. It owns a MediaPort on loopback,
// reads one JSON object per line on stdin ({"type":"offer","sdp":...}), answers on stdout
// ({"type":"answer","sdp":...}), and echoes the browser's media back to it. Logs go to stderr.
import Foundation
import RTCNet
import RTCTransport



let bindHost = ProcessInfo.processInfo.environment["ECHO_BIND"] ?? "127.0.0.1"
let server: EchoServer
do {
    server = try EchoServer(bindHost: bindHost)
} catch {
    EchoServer.log("setup failed: \(error)")
    exit(1)
}

// Key-frame requests once a second.
let pliThread = Thread { [server] in
    while true {
        Thread.sleep(forTimeInterval: 1)
        server.requestKeyFrames()
    }
}
pliThread.start()

while let line = readLine() {
    guard let data = line.data(using: .utf8),
          let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
          let type = object["type"] as? String else { continue }
    switch type {
    case "offer":
        guard let sdp = object["sdp"] as? String else { continue }
        var reply: [String: Any]
        do {
            reply = ["type": "answer", "sdp": try server.answer(sdp)]
        } catch {
            EchoServer.log("offer failed: \(error)")
            reply = ["type": "error", "message": "\(error)"]
        }
        let out = try JSONSerialization.data(withJSONObject: reply)
        FileHandle.standardOutput.write(out + Data("\n".utf8))
    case "quit":
        server.closeAll()
        Thread.sleep(forTimeInterval: 0.2)
        exit(0)
    default:
        continue
    }
}
