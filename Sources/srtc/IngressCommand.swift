import Foundation
import SRTCProtocol

/// `srtc ingress create|list|delete`: manages RTMP, SRT and URL ingresses with signed calls to
/// `/server/v1/ingress/…` (docs/ingress.md) and prints the server's JSON answer.
enum IngressCommand {
    static let help = """
    usage: srtc ingress create --channel C --uid U --kind rtmp|srt|url [--source URL]
                               [--simulcast] [--video-bitrate BPS] [--passthrough]
           srtc ingress list [--channel C]
           srtc ingress delete --id IN_…
           (each with [--url http://127.0.0.1:7880] [--app-id ID] [--app-key KEY])

    create  makes an ingress: for rtmp and srt the answer's "url" and "stream_key" are what an
            encoder (OBS, ffmpeg) pushes to; for url the server pulls --source (http, https, rtmp,
            rtmps or srt). The stream appears in channel C as user U while media flows.
            H.264 Baseline and Main without B-frames pass through, the rest is transcoded to
            VP8; --simulcast or --video-bitrate always transcode; --passthrough passes H.264
            High through too (for viewers that decode High: not Debian's Chromium).
    list    the ingresses of the app (of channel C).
    delete  ends an ingress: a push in progress ends and its user leaves.

    --url defaults to $SRTC_URL or http://127.0.0.1:7880. Prints the JSON answer; exits 1 when
    the server refuses.
    """

    static func run(_ args: ArraySlice<String>, environment: [String: String]) async throws(CLIError) {
        guard let action = args.first, !action.hasPrefix("-") else {
            if args.contains("--help") || args.contains("-h") { print(help); return }
            throw .usage("srtc ingress needs create, list or delete\n\n\(help)")
        }
        let o = try Options(args.dropFirst(), booleans: ["help", "simulcast", "passthrough"])
        if o.wantsHelp { print(help); return }
        let common = ["url", "app-id", "app-key"]
        var body: [String: Any] = [:]
        switch action {
        case "create":
            try o.rejectUnknown(allowed: Set(common + ["channel", "uid", "kind", "source", "simulcast", "video-bitrate", "passthrough"]))
            body["channel"] = try o.require("channel", environment: environment)
            body["uid"] = try o.require("uid", environment: environment)
            body["kind"] = try o.require("kind", environment: environment)
            if let source = o["source"] { body["url"] = source }
            var transcode: [String: Any] = [:]
            if o.flags.contains("simulcast") { transcode["simulcast"] = true }
            if let b = o["video-bitrate"] {
                guard let v = Int(b) else { throw .usage("--video-bitrate must be an integer") }
                transcode["video_bitrate"] = v
            }
            if o.flags.contains("passthrough") {
                guard transcode.isEmpty else { throw .usage("--passthrough cannot go with --simulcast or --video-bitrate (they transcode)") }
                body["transcode"] = false
            } else if !transcode.isEmpty {
                body["transcode"] = transcode
            }
        case "list":
            try o.rejectUnknown(allowed: Set(common + ["channel"]))
            if let channel = o["channel"] { body["channel"] = channel }
        case "delete":
            try o.rejectUnknown(allowed: Set(common + ["id"]))
            body["ingress_id"] = try o.require("id", environment: environment)
        default:
            throw .usage("unknown ingress action '\(action)'\n\n\(help)")
        }
        let appId = try o.require("app-id", env: "SRTC_APP_ID", environment: environment)
        let appKey = try o.require("app-key", env: "SRTC_APP_KEY", environment: environment)
        let json = (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data()
        let base = o["url"] ?? environment["SRTC_URL"] ?? "http://127.0.0.1:7880"
        let response = try await SignedClient(baseURL: base, appId: appId, appKey: appKey)
            .call(method: "POST", path: "/server/v1/ingress/" + action, body: Array(json))
        print(String(decoding: response.body, as: UTF8.self))
        guard response.status == 200 else { throw .failed("server answered \(response.status)") }
    }
}
