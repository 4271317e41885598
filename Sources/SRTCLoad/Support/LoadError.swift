/// Why a load test could not run (the figures of a run that did are in its `LoadReport`).
package enum LoadError: Error, Sendable, CustomStringConvertible {
    /// A bad option or a scenario out of bounds.
    case invalidScenario(String)
    /// Joining, publishing or subscribing failed.
    case setup(String)
    /// The target answered something unexpected (a Janus error, a refused request).
    case target(String)
    /// Janus could not be started.
    case janus(String)

    package var description: String {
        switch self {
        case .invalidScenario(let text): "invalid scenario: \(text)"
        case .setup(let text): "setup failed: \(text)"
        case .target(let text): "target error: \(text)"
        case .janus(let text): "janus: \(text)"
        }
    }
}
