/// What a network speed test measures against (the documentation's `RTCSpeedTestParams`):
/// the server's media port, a token, the duration and the bitrates the app expects to use.
///
/// ```swift
/// var params = SpeedTestParams(serverAddress: "rtc.example.com", token: speedTestToken)
/// params.expectedUplinkBitrate = 1_500_000
/// try srtc.startSpeedTest(params)
/// ```
public struct SpeedTestParams: Sendable, Equatable {
    /// Echoed in every progress and result, so an app running tests in turn can tell them apart
    /// (the documentation's link ID).
    public var linkId: String
    /// The server's host name or IP address.
    public var serverAddress: String
    /// The server's UDP media port (`--udp-port`, 7881 by default).
    public var serverPort: UInt16
    /// A speed-test token (`POST /server/v1/speedtest/grant`) or a channel token of the app.
    public var token: String
    /// The whole test in seconds, 2 to 30 (clamped): about 30 % latency and loss, 35 % uplink,
    /// 35 % downlink.
    public var duration: Double
    /// Bits per second the uplink load is sent at (clamped to 100 kbps – the server's limit);
    /// the measured bandwidth cannot exceed it, so ask for more than the app will need.
    public var expectedUplinkBitrate: Int
    /// Bits per second the server is asked to send downlink (same rules).
    public var expectedDownlinkBitrate: Int

    public init(linkId: String = "", serverAddress: String, serverPort: UInt16 = 7881, token: String, duration: Double = 10,
                expectedUplinkBitrate: Int = 2_000_000, expectedDownlinkBitrate: Int = 2_000_000) {
        self.linkId = linkId
        self.serverAddress = serverAddress
        self.serverPort = serverPort
        self.token = token
        self.duration = duration
        self.expectedUplinkBitrate = expectedUplinkBitrate
        self.expectedDownlinkBitrate = expectedDownlinkBitrate
    }

    static let durationRange = 2.0...30.0
    static let bitrateRange = 100_000...1_000_000_000
}
