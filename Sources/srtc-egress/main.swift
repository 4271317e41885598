import EgressWorker
import Foundation

/// `srtc-egress`: an egress worker (composite, recording, live output). The server starts one
/// per task and talks to it over standard input and output (docs/egress.md, "Workers").
if CommandLine.arguments.contains("--help") {
    print("usage: srtc-egress   (started by srtc-server: a task line on standard input, events on standard output)")
    exit(0)
}
exit(await WorkerRuntime.run())
