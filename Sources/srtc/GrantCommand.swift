import Foundation
import SRTCProtocol

/// `srtc grant`: asks a server for a channel join token with a signed request.
enum GrantCommand {
    static let help = """
    usage: srtc grant --channel C --uid U [--url http://127.0.0.1:7880] [--expire-seconds N]
                      [--no-publish] [--no-subscribe] [--no-publish-data] [--app-id ID] [--app-key KEY]

    Calls POST /server/v1/channel/grant signed with the app's key and prints the JSON answer
    {"token": ..., "expire_at": ...}. --url defaults to $SRTC_URL or http://127.0.0.1:7880.
    """

    static func run(_ args: ArraySlice<String>, environment: [String: String]) async throws(CLIError) {
        let o = try Options(args, booleans: ["help", "no-publish", "no-subscribe", "no-publish-data"])
        if o.wantsHelp { print(help); return }
        try o.rejectUnknown(allowed: ["channel", "uid", "url", "expire-seconds", "no-publish", "no-subscribe", "no-publish-data", "app-id", "app-key"])
        let appId = try o.require("app-id", env: "SRTC_APP_ID", environment: environment)
        let appKey = try o.require("app-key", env: "SRTC_APP_KEY", environment: environment)
        var body: [String: Any] = ["channel": try o.require("channel", environment: environment),
                                   "uid": try o.require("uid", environment: environment)]
        if let e = o["expire-seconds"] {
            guard let v = Int(e) else { throw .usage("--expire-seconds must be an integer") }
            body["expire_seconds"] = v
        }
        body["permissions"] = ["publish": !o.flags.contains("no-publish"), "subscribe": !o.flags.contains("no-subscribe"),
                               "publish_data": !o.flags.contains("no-publish-data")]
        let json = (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data()
        let base = o["url"] ?? environment["SRTC_URL"] ?? "http://127.0.0.1:7880"
        let response = try await SignedClient(baseURL: base, appId: appId, appKey: appKey)
            .call(method: "POST", path: "/server/v1/channel/grant", body: Array(json))
        print(String(decoding: response.body, as: UTF8.self))
        guard response.status == 200 else { throw .failed("server answered \(response.status)") }
    }
}
