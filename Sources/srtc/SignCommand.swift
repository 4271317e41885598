import Foundation
import SRTCProtocol

/// `srtc sign`: prints the four auth headers for a request, so any HTTP tool can call the API.
enum SignCommand {
    static let help = """
    usage: srtc sign --method POST --path /server/v1/channel/grant [--body JSON | --body-file F]
                     [--app-id ID] [--app-key KEY] [--nonce N] [--timestamp UNIX] [--format headers|curl|json]

    Prints the headers app_id, nonce, timestamp and signature of docs/server-api.md.
    --app-id / --app-key default to $SRTC_APP_ID / $SRTC_APP_KEY. --path includes the query string.
    --nonce and --timestamp default to a random nonce and the current time (set them to reproduce a signature).
    --format curl prints `-H 'name: value'` arguments; json prints an object.
    """

    static func run(_ args: ArraySlice<String>, environment: [String: String]) throws(CLIError) {
        let o = try Options(args)
        if o.wantsHelp { print(help); return }
        try o.rejectUnknown(allowed: ["method", "path", "body", "body-file", "app-id", "app-key", "nonce", "timestamp", "format"])
        let appId = try o.require("app-id", env: "SRTC_APP_ID", environment: environment)
        let appKey = try o.require("app-key", env: "SRTC_APP_KEY", environment: environment)
        let method = (o["method"] ?? "POST").uppercased()
        let path = try o.require("path", environment: environment)
        guard path.hasPrefix("/") else { throw .usage("--path must start with / (path and query, no host)") }
        var body: [UInt8] = Array((o["body"] ?? "").utf8)
        if let file = o["body-file"] {
            guard let data = FileManager.default.contents(atPath: file) else { throw .failed("cannot read \(file)") }
            body = Array(data)
        }
        let timestamp: Int64
        if let t = o["timestamp"] {
            guard let v = Int64(t) else { throw .usage("--timestamp must be Unix seconds") }
            timestamp = v
        } else {
            timestamp = Int64(Date().timeIntervalSince1970)
        }
        let headers = o["nonce"].map {
            RequestSignature.headers(appId: appId, appKey: appKey, method: method, pathAndQuery: path, body: body, timestamp: timestamp, nonce: $0)
        } ?? RequestSignature.headers(appId: appId, appKey: appKey, method: method, pathAndQuery: path, body: body, timestamp: timestamp)
        switch o["format"] ?? "headers" {
        case "headers": for (k, v) in headers { print("\(k): \(v)") }
        case "curl": print(headers.map { "-H '\($0): \($1)'" }.joined(separator: " "))
        case "json": print("{" + headers.map { "\"\($0)\":\"\($1)\"" }.joined(separator: ",") + "}")
        default: throw .usage("--format must be headers, curl or json")
        }
    }
}
