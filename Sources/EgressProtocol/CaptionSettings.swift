/// A caption worker's task (docs/captions.md): hear every user of the channel and write what
/// they say.
public struct CaptionSettings: Codable, Sendable, Equatable {
    /// The languages a recognizer model is installed for (Debian's `pocketsphinx-en-us`).
    public static let languages = ["en-US"]

    /// The worker's own (hidden) uid in the channel.
    public var uid: String
    /// The spoken language (BCP 47, `en-US`): which recognizer model runs.
    public var language: String
    /// Seconds the worker stays with no user in the channel before it ends (`ended` `idle`).
    public var idleTimeoutSeconds: Int

    public init(uid: String, language: String, idleTimeoutSeconds: Int = 60) {
        self.uid = uid
        self.language = language
        self.idleTimeoutSeconds = idleTimeoutSeconds
    }
}
