import Testing
@testable import SRTCServer

// Replaced by this module's real tests as they land.
@Test func moduleLinks() { #expect(Bool(true)) }
