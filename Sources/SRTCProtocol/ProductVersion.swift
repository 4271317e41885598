/// The version of this release of SRTC: the one source every part reports. `SRTCEngine.version`,
/// the `sdk` field of channel joins and IM logins, `srtc --version`, `srtc-server --version` and
/// `GET /healthz` read it; the web SDK's `SDK_VERSION` (web/srtc/channel.js,
/// web/smeeting/engine.js) must equal it, which ProductVersionTests check.
/// Semantic Versioning 2.0.0 (MAJOR.MINOR.PATCH, https://semver.org).
public enum ProductVersion {
    public static let current = "0.1.0"
}
