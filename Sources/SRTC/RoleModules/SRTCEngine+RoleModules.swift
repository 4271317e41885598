import Dispatch
import RTCNet

/// What the engine gives the SDK's role modules (`SRTCIM`, `SRTCSpeedTest`, `SRTCPlayer`,
/// `SRTCRender`), which extend it from outside: their per-engine state, the camera-filter slot,
/// its settings and its log. They use the engine's public API and this `package` surface only
/// (docs/architecture.md, "The SDK's modules").
extension SRTCEngine {
    /// The role modules' per-engine state.
    package var attachments: EngineAttachments { roleAttachments }

    /// The engine's camera-frame filter (`SRTCRender`'s render module): its per-engine object of
    /// type `F`, put in the slot every camera track calls on first use. One type fills the slot.
    package func cameraFrameFilter<F: CameraFrameFilter & EngineAttachment>(_ type: F.Type = F.self) -> F {
        let filter = roleAttachments.attachment(type)
        let inSlot = context.cameraFilter.fill { filter }
        precondition(inSlot === filter, "the camera-frame filter slot holds \(Swift.type(of: inSlot)), not \(type)")
        return filter
    }

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
