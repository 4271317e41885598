import Foundation

/// The process-wide engine as seed 000 names it (`sharedEngine`, `sharedEngineWithConfig:appGroup:delegate:`).
///
/// ```swift
/// let srtc = SRTCEngine.sharedEngine()               // the live engine, or a new one (events on .main)
/// let srtc = try SRTCEngine.sharedEngine(configuration: .init(logLevel: .info), appGroup: "group.app", delegate: self)
/// ```
extension SRTCEngine {
    /// The process's engine: the live one, or a new one with the default configuration (events on
    /// the main queue, log level `.warning`). It lives until its `destroy()`; the next call after
    /// that makes a new one.
    public static func sharedEngine() -> SRTCEngine {
        sharedEngine(orMakeWith: Configuration())
    }

    /// Makes the process's engine with this configuration in one step (seed 000's
    /// `sharedEngineWithConfig:appGroup:delegate:`).
    /// - Parameters:
    ///   - configuration: log level and sink, delegate queue, …, fixed for the engine's life.
    ///   - appGroup: stored as `configuration.appGroup` (the broadcast extension's App Group);
    ///     nil keeps the configuration's.
    ///   - delegate: added to `delegates` (held weakly).
    /// - Throws: `.conflict` while an engine lives already: its configuration cannot change;
    ///   `sharedEngine()` returns it.
    public static func sharedEngine(configuration: Configuration, appGroup: String? = nil,
                                    delegate: SRTCEngineDelegate? = nil) throws(SRTCError) -> SRTCEngine {
        var configuration = configuration
        if let appGroup { configuration.appGroup = appGroup }
        let engine = try SRTCEngine(configuration: configuration)
        if let delegate { engine.delegates.add(delegate: delegate) }
        return engine
    }

    /// The live engine, or one made with `configuration` (used by `SMeetingEngine`, whose
    /// `srtc` is the process's engine).
    package static func sharedEngine(orMakeWith configuration: Configuration) -> SRTCEngine {
        ProcessEngine.beginCreation()
        defer { ProcessEngine.endCreation() }
        if let live = ProcessEngine.live { return live }
        let engine = SRTCEngine(independent: configuration)
        ProcessEngine.fill(engine)
        return engine
    }
}
