import EgressProtocol

/// The bodies of `/server/v1/channel/captions/…` (docs/captions.md), snake_case as sent.
enum CaptionRequests {
    struct Start: Decodable, Sendable {
        var channel: String
        /// BCP 47; default `en-US`, the one model Debian ships.
        var language: String?
    }

    struct Stop: Decodable, Sendable {
        var channel: String
    }

    struct List: Decodable, Sendable {
        var channel: String
        /// Only the captions of this run of captions.
        var captions_id: String?
        /// Only captions that start at or after this Unix millisecond.
        var since_ms: Int64?
        /// At most this many (default 1000, 1…10000), oldest first.
        var limit: Int?
    }

    /// The supported language `name` spells (case does not matter), in its canonical spelling.
    static func language(_ name: String?) throws(EgressError) -> String {
        guard let name else { return CaptionSettings.languages[0] }
        guard let known = CaptionSettings.languages.first(where: { $0.lowercased() == name.lowercased() }) else {
            throw EgressError(.invalidParameter, "language \(name) is not supported (supported: \(CaptionSettings.languages.joined(separator: ", ")))")
        }
        return known
    }
}
