import Testing
@testable import SRTCCore

@Suite struct SignalURLTests {
    @Test(arguments: [
        ("http://127.0.0.1:7880", "ws://127.0.0.1:7880/rtc/v1/ws"),
        ("http://127.0.0.1:7880/", "ws://127.0.0.1:7880/rtc/v1/ws"),
        ("https://rtc.example.com", "wss://rtc.example.com/rtc/v1/ws"),
        ("HTTPS://rtc.example.com:8443", "wss://rtc.example.com:8443/rtc/v1/ws"),
        ("https://example.com/srtc", "wss://example.com/srtc/rtc/v1/ws"),
        ("ws://host:7880", "ws://host:7880/rtc/v1/ws"),
        ("wss://host/custom/path", "wss://host/custom/path"),
        ("http://[::1]:7880", "ws://[::1]:7880/rtc/v1/ws"),
        ("http://h:1?region=eu", "ws://h:1/rtc/v1/ws?region=eu"),
    ])
    func serverURLMapsToTheSignalingWebSocket(given: String, expected: String) throws {
        #expect(try SignalURL.webSocketURL(for: given) == expected)
    }

    @Test(arguments: ["", "127.0.0.1:7880", "ftp://host", "http://", "http:// host"])
    func unusableURLsAreRefused(given: String) {
        #expect(throws: SRTCError.invalidURL(given)) { try SignalURL.webSocketURL(for: given) }
    }
}
