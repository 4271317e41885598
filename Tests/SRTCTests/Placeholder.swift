import Testing
@testable import SRTC

// Replaced by this module's real tests as they land.
@Test func moduleLinks() { #expect(Bool(true)) }
