/// `caption`: one line of live captions (docs/protocol.md, "Captions"). A speaker's captions
/// come in order: partials (`final: false`) while they speak, each replacing the one before,
/// then one final per turn. Times are Unix milliseconds of the first and last recognised sound.
public struct Caption: Codable, Sendable, Equatable {
    /// Whose speech this is.
    public var uid: String
    public var text: String
    /// False: a partial the next caption of `uid` replaces; true: the turn's last word on it.
    public var final: Bool
    public var startMs: Int64
    public var endMs: Int64

    public init(uid: String, text: String, final: Bool, startMs: Int64, endMs: Int64) {
        self.uid = uid
        self.text = text
        self.final = final
        self.startMs = startMs
        self.endMs = endMs
    }

    enum CodingKeys: String, CodingKey {
        case uid, text, final
        case startMs = "start_ms"
        case endMs = "end_ms"
    }
}
