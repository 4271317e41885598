import Dispatch
import RTCNet

/// What the engine gives the SDK's role modules (`SRTCIM`, `SRTCSpeedTest`, `SRTCPlayer`), which
/// extend it from outside: their per-engine state, its settings and its log. They use the
/// engine's public API and this `package` surface only (docs/architecture.md, "The SDK's modules").
extension SRTCEngine {
    /// The role modules' per-engine state.
    package var attachments: EngineAttachments { roleAttachments }

    /// Whether `destroy()` has begun.
    package var isDestroyed: Bool { context.isDestroyed }

    /// The serial queue every delegate event is delivered on.
    package var delegateQueue: DispatchQueue { context.delegateQueue }

    /// How the engine's WebSockets verify a TLS server (`trustedCAFile`, the server's own certificate).
    package var tlsConfiguration: TLSConfiguration { context.configuration.tls }

    /// Logs through the SDK's logger (the level and sink the app set); the text is built only when logged.
    package func log(_ level: LogLevel, _ message: @autoclosure () -> String) {
        context.logger.log(level, message())
    }

    /// Keeps the seal key a server sent with a login (docs/sealed-strings.md), for `decrypt(_:)`.
    package static func rememberSealKey(_ encodedKey: String?, uid: String, token: String) {
        SealKeyring.shared.remember(encodedKey: encodedKey, uid: uid, token: token)
    }
}
