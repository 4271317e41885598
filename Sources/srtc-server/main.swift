import EgressServer
import Foundation
import IMServer
import MeetingServer
import RTCNet
import SRTCProtocol
import SRTCServer

/// `srtc-server`: parses the configuration, opens the data directory, serves until SIGINT/SIGTERM.
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("--help") || arguments.contains("-h") {
    print(ServerConfig.usage)
    exit(0)
}
if arguments.contains("--version") {
    print("srtc-server \(ProductVersion.current)")
    exit(0)
}

let config: ServerConfig
do {
    config = try ServerConfig.load(arguments: arguments, environment: ProcessInfo.processInfo.environment)
} catch {
    FileHandle.standardError.write(Data("srtc-server: \(error)\n".utf8))
    exit(2)
}
Log.setLevel(Log.Level(name: config.logLevel) ?? .info)
// Every connection is a descriptor: use the hard limit, not the service manager's soft default.
let descriptors = ProcessLimits.raiseOpenFileLimit()
if descriptors.current > descriptors.previous {
    Log.info("server", "open-file limit raised from \(descriptors.previous) to \(descriptors.current)")
}

let app: ServerApp
do {
    app = try ServerApp(config: config, modules: [IMModule.factory, MeetingModule.factory, EgressModule.factory])
    try app.start()
} catch {
    FileHandle.standardError.write(Data("srtc-server: cannot start: \(error)\n".utf8))
    exit(1)
}

// Signals are handled before the banner below: whoever reads "listening" may send one at once (a
// SIGHUP before its handler existed ended the server). Serve until a termination signal, then shut
// down gracefully. On a cluster node, SIGTERM drains first: no new channels, then the remaining
// clients move to other nodes (docs/deploy.md).
signal(SIGINT, SIG_IGN)
signal(SIGTERM, SIG_IGN)
let signals = [SIGINT, SIGTERM].map { DispatchSource.makeSignalSource(signal: $0, queue: .main) }
for (source, number) in zip(signals, [SIGINT, SIGTERM]) {
    source.setEventHandler {
        Log.info("server", number == SIGTERM && app.cluster != nil ? "draining, then shutting down" : "shutting down")
        Task {
            if number == SIGTERM { await app.drain(deadline: .seconds(config.cluster.drainSeconds)) }
            await app.shutdown()
            exit(0)
        }
    }
    source.resume()
}

// SIGHUP reads the TLS certificate and key again (a renewal; the package's unit sends it on
// `systemctl reload`): new connections get the new pair, open ones keep theirs; a pair that does
// not load is logged and the old one stays in use. Without TLS it only says so: a reload must
// never stop the server, and SIGHUP's default action would.
signal(SIGHUP, SIG_IGN)
let reload = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .main)
reload.setEventHandler {
    guard config.http.tls != nil else {
        Log.info("tls", "SIGHUP: nothing to reload (TLS is off)")
        return
    }
    do {
        let summary = try app.reloadTLS()
        Log.info("tls", "SIGHUP: reloaded \(config.http.tlsCert ?? "") and \(config.http.tlsKey ?? ""); new connections get \(summary.map(String.init(describing:)) ?? "it")")
    } catch {
        Log.error("tls", "SIGHUP: kept the certificate in use, the new one does not load: \(error)")
    }
}
reload.resume()

let base = "\(config.http.scheme)://\(config.bind == "0.0.0.0" ? "127.0.0.1" : config.bind):\(app.httpPort)"
// ws:// beside http://, wss:// beside https://.
let wsBase = (config.http.tls == nil ? "ws" : "wss") + base.drop { $0 != ":" }
if let created = app.createdApp {
    print("""
    Created the first app (its key is shown only now; it is stored in \(config.dataDir)):
      app_id:  \(created.appId)
      app_key: \(created.appKey)
    """)
} else {
    print("apps: \(app.apps.all.map(\.appId).joined(separator: ", "))")
}
print("srtc-server listening on \(base) (\(config.http.tls == nil ? "HTTP" : "HTTPS")) and udp \(config.bind):\(app.udpPort) (media)"
      + (app.iceTCPPort.map { ", tcp \(config.bind):\($0) (ICE-TCP)" } ?? ""))
print("  media workers: \(app.udpPorts.count) (UDP ports \(app.udpPorts.map(String.init).joined(separator: ", ")); a firewall opens each)")
print("  server API: \(base)/server/v1/…   signaling: \(wsBase)/rtc/v1/ws   meetings: \(wsBase)/stm/v1/ws   IM: \(wsBase)/im/v1/ws   health: \(base)/healthz")
if let redirectPort = app.httpRedirectPort {
    print("  http://\(config.bind == "0.0.0.0" ? "127.0.0.1" : config.bind):\(redirectPort) redirects to \(base) (308)")
}
if app.webDirectory != nil {
    print("  demo page: \(base)/   web SDK: \(base)/sdk/srtc.js, \(base)/sdk/smeeting.js")
    print("  meeting app: \(base)/meet/")
}
if config.demoAuth != .off {
    // Loud on purpose: the demo sign-in hands member tokens to whoever asks.
    let who = config.demoAuth == .on ? "ANYONE who can reach this server" : "anyone on this machine (loopback clients)"
    print("""
    ************************************************************************************
    WARNING: demo sign-in is ON (--demo-auth \(config.demoAuth.rawValue)): \(who)
    gets a member token for any display name at POST /demo/v1/sign-in. For trying the
    meeting app only. In production your backend signs its users in and calls the signed
    /stm/srvapi/v1/member/grant (docs/sdk-web.md, "Your backend"). Run without --demo-auth.
    ************************************************************************************
    """)
    Log.warn("server", "demo sign-in is on (\(config.demoAuth.rawValue)); never use it in production")
}
fflush(nil)  // flush every stream: output may be a pipe (tests read the credentials from it)

dispatchMain()
