import Foundation
import SRTC
import Synchronization

/// `srtc im`: an IM client on the Swift SDK for scripts and tests: prints every entry it receives
/// as one JSON line, and can send, invite, echo and answer calls.
enum IMCommand {
    static let help = """
    usage: srtc im [--url URL] (--token TOKEN | --uid U [--app-id ID --app-key KEY]) [--send UID:TEXT]...
                   [--invite UID] [--channel C] [--echo] [--accept-calls] [--decline-calls] [--duration SECONDS]

    Enables IM (docs/im.md) on the server at --url with --token (an IM token from
    POST /server/v1/im/grant), or with one granted on the spot for --uid from the app's
    credentials (--app-id/--app-key or $SRTC_APP_ID/$SRTC_APP_KEY). Prints "connected", then every
    entry of the mailbox as one JSON line ({"seq", "kind", "from", "content", "call_id", ...}).
      --send UID:TEXT   send a message once connected (repeatable)
      --invite UID      invite UID to a call (in --channel, when given)
      --echo            answer every message with "echo: <text>"
      --accept-calls    accept every invitation (--decline-calls: decline it)
    Runs for --duration seconds, or until interrupted.
    """

    static func run(_ args: ArraySlice<String>, environment: [String: String]) async throws(CLIError) {
        let o = try Options(args, booleans: ["help", "echo", "accept-calls", "decline-calls"], repeatable: ["send"])
        if o.wantsHelp { print(help); return }
        try o.rejectUnknown(allowed: ["url", "token", "uid", "app-id", "app-key", "send", "invite", "channel", "echo", "accept-calls",
                                      "decline-calls", "duration"])
        let url = o["url"] ?? environment["SRTC_URL"] ?? "http://127.0.0.1:7880"
        let token: String
        if let given = o["token"] {
            token = given
        } else {
            let client = SignedClient(baseURL: url, appId: try o.require("app-id", env: "SRTC_APP_ID", environment: environment),
                                      appKey: try o.require("app-key", env: "SRTC_APP_KEY", environment: environment))
            token = try await client.grantToken(path: "/server/v1/im/grant", body: ["uid": try o.require("uid", environment: environment)])
        }
        let engine = try CLIError.sdk { () throws(SRTCError) in try SRTCEngine(configuration: .init(delegateQueue: DispatchQueue(label: "srtc.im.events"), logLevel: .warning)) }
        let printer = Printer(engine: engine, echo: o.flags.contains("echo"),
                              answer: o.flags.contains("accept-calls") ? true : o.flags.contains("decline-calls") ? false : nil)
        do {
            try await engine.enableIm(url: url, token: token, delegate: printer)
            for item in o.all("send") {
                guard let colon = item.firstIndex(of: ":") else { throw CLIError.usage("--send takes UID:TEXT") }
                try await engine.sendImMessage(to: String(item[..<colon]), content: String(item[item.index(after: colon)...]))
            }
            if let callee = o["invite"] {
                let call = try await engine.sendCallInvite(to: callee, channel: o["channel"])
                JoinOutput.line(#"{"invited":"\#(callee)","call_id":"\#(call.callId)"}"#)
            }
        } catch let error as CLIError {
            throw error
        } catch {
            throw .failed("IM: \(error)")
        }
        let stop = StopSignal()
        let deadline = o["duration"].flatMap(Double.init).map { Date().addingTimeInterval($0) }
        while !stop.requested, deadline.map({ Date() < $0 }) ?? true {
            try? await Task.sleep(for: .milliseconds(100))
        }
        await engine.destroy()
    }

    /// Prints entries and plays the echo and answering roles.
    final class Printer: IMDelegate, Sendable {
        let engine: SRTCEngine
        let echo: Bool
        let answer: Bool?

        init(engine: SRTCEngine, echo: Bool, answer: Bool?) {
            self.engine = engine
            self.echo = echo
            self.answer = answer
        }

        func imDidConnect(_ engine: SRTCEngine) { JoinOutput.line("connected") }
        func imIsReconnecting(_ engine: SRTCEngine) { JoinOutput.line("reconnecting") }
        func imDidDisconnect(_ engine: SRTCEngine, error: SRTCError?) { JoinOutput.line("disconnected" + (error.map { " \($0)" } ?? "")) }

        func im(_ engine: SRTCEngine, didReceive message: IMMessage) {
            let encoder = JSONEncoder()
            encoder.keyEncodingStrategy = .convertToSnakeCase
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            JoinOutput.line((try? encoder.encode(message)).map { String(decoding: $0, as: UTF8.self) } ?? "{}")
            if echo, message.kind == .message, let from = message.from {
                Task { _ = try? await engine.sendImMessage(to: from, content: "echo: \(message.content)") }
            }
            if let answer, message.kind == .callInvite, let callId = message.callId {
                Task { answer ? try? await engine.acceptCall(callId: callId) : try? await engine.declineCall(callId: callId) }
            }
        }
    }
}
