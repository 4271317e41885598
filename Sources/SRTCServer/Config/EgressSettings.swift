/// The egress module's workers, recordings and ingress ports (docs/egress.md, docs/ingress.md;
/// README's flags table), read by the `EgressServer` module.
public struct EgressSettings: Sendable, Equatable {
    /// Directory of recordings (`--recording-dir`, `SRTC_RECORDING_DIR`); nil: `<data-dir>/recordings`.
    public var recordingDir: String?
    /// The egress worker executable (`--egress-worker`, `SRTC_EGRESS_WORKER`); nil: `srtc-egress` beside the server.
    public var worker: String?
    /// Egress tasks (composites, recordings and ingresses) this node runs at once
    /// (`--egress-max-tasks`, `SRTC_EGRESS_MAX_TASKS`).
    public var maxTasks: Int = 8
    /// The ports RTMP and SRT ingress listeners take (`--ingress-ports LOW-HIGH`, `SRTC_INGRESS_PORTS`);
    /// nil: any free port (docs/ingress.md).
    public var ingressPorts: ClosedRange<UInt16>?

    public init() {}
}
