import Testing
@testable import RTCTransport

// Replaced by this module's real tests as they land.
@Test func moduleLinks() { #expect(Bool(true)) }
