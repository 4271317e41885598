import Testing
@testable import RTCWire

// Replaced by this module's real tests as they land.
@Test func moduleLinks() { #expect(Bool(true)) }
