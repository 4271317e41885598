import Testing
@testable import SRTCProtocol

// Replaced by this module's real tests as they land.
@Test func moduleLinks() { #expect(Bool(true)) }
