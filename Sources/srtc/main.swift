import Foundation
import SRTCProtocol

/// `srtc`: the command-line tool. Every command answers `--help`.
let usage = """
usage: srtc <command> [options]

commands:
  sign           print the four signature headers for a server-API request
  grant          obtain a channel join token from a server (signed call to /server/v1/channel/grant)
  token decode   show a token's claims, optionally verifying it
  join           join a channel as a bot on the Swift SDK: publish a test pattern or files, record what arrives
  whip           publish a test pattern and tone (or files) to any WHIP endpoint (RFC 9725)
  ingress        create, list or delete RTMP, SRT and URL ingresses (signed calls to /server/v1/ingress/…)
  play           play a live stream (HLS, RTMP…) with the SDK's receive-only CDN engine; record what arrives
  load-test      publishers and subscribers on this machine against our server or Janus VideoRoom: delivery, loss, delay
  speedtest      measure bandwidth, RTT, jitter and loss to a server's media port
  im             an IM client: print received messages, calls and notifications; send, invite, echo
  agent          run an example agent: echo (repeats what each speaker said, as speech) or captions (prints and sends them)
  broadcast      send a test pattern to an app's screen-broadcast socket, as an iOS broadcast extension does
  help           this text
  version        the version of this release (also --version)

Credentials come from --app-id / --app-key or $SRTC_APP_ID / $SRTC_APP_KEY.
Run `srtc <command> --help` for a command's options.
"""

let arguments = CommandLine.arguments.dropFirst()
let environment = ProcessInfo.processInfo.environment
do {
    switch arguments.first {
    case "sign": try SignCommand.run(arguments.dropFirst(), environment: environment)
    case "grant": try await GrantCommand.run(arguments.dropFirst(), environment: environment)
    case "join": try await JoinCommand.run(arguments.dropFirst(), environment: environment)
    case "whip": try await WHIPCommand.run(arguments.dropFirst(), environment: environment)
    case "ingress": try await IngressCommand.run(arguments.dropFirst(), environment: environment)
    case "play": try await PlayCommand.run(arguments.dropFirst(), environment: environment)
    case "token": try TokenCommand.run(arguments.dropFirst(), environment: environment)
    case "load-test": try await LoadTestCommand.run(arguments.dropFirst(), environment: environment)
    case "speedtest": try await SpeedTestCommand.run(arguments.dropFirst(), environment: environment)
    case "im": try await IMCommand.run(arguments.dropFirst(), environment: environment)
    case "agent": try await AgentCommand.run(arguments.dropFirst(), environment: environment)
    case "broadcast": try BroadcastCommand.run(arguments.dropFirst(), environment: environment)
    case nil, "help", "--help", "-h": print(usage)
    case "version", "--version": print("srtc \(ProductVersion.current)")
    case let other?:
        throw CLIError.usage("unknown command '\(other)'\n\n\(usage)")
    }
} catch let error as CLIError {
    FileHandle.standardError.write(Data("srtc: \(error)\n".utf8))
    if case .usage = error { exit(2) }
    exit(1)
} catch {
    FileHandle.standardError.write(Data("srtc: \(error)\n".utf8))
    exit(1)
}
