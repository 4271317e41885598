import Testing
@testable import SFU

// Replaced by this module's real tests as they land.
@Test func moduleLinks() { #expect(Bool(true)) }
