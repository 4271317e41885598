import Foundation
import SRTCProtocol

/// `srtc token decode`: shows a token's claims (without checking the signature unless a key is given).
enum TokenCommand {
    static let help = """
    usage: srtc token decode TOKEN [--app-key KEY]

    Prints the token's claims as JSON. With --app-key (or $SRTC_APP_KEY and --verify) the signature and
    validity window are checked too, and the exit status is 1 when they fail.
    """

    static func run(_ args: ArraySlice<String>, environment: [String: String]) throws(CLIError) {
        let o = try Options(args, booleans: ["help", "verify"])
        if o.wantsHelp || o.positional.first != "decode" { print(help); if !o.wantsHelp { throw .usage("expected: srtc token decode TOKEN") }; return }
        try o.rejectUnknown(allowed: ["app-key", "verify"])
        guard o.positional.count == 2 else { throw .usage("expected one TOKEN after decode") }
        let token = o.positional[1]
        let claims: TokenClaims
        do {
            claims = try AccessToken.decodeUnverified(token)
        } catch {
            throw .failed("not a token: \(error)")
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        print(String(decoding: (try? encoder.encode(claims)) ?? Data(), as: UTF8.self))
        let key = o["app-key"] ?? (o.flags.contains("verify") ? environment["SRTC_APP_KEY"] : nil)
        guard let key else { return }
        do {
            _ = try AccessToken.verify(token, now: Int64(Date().timeIntervalSince1970)) { $0 == claims.iss ? key : nil }
            print("signature: valid; expires \(Date(timeIntervalSince1970: TimeInterval(claims.exp)))")
        } catch {
            throw .failed("token rejected: \(error) (\(error.code.name))")
        }
    }
}
