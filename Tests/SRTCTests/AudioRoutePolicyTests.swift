@testable import SRTCCore
import Testing

/// The documented rules of `switchAudioRoute:`, which `AudioRouteSession` (iOS) applies to the
/// audio session.
struct AudioRoutePolicyTests {
    static let phone: Set<AudioRoute> = [.speaker, .earpiece]

    @Test func aChosenBuiltInRouteIsKeptAfterAReconfiguration() throws {
        var policy = AudioRoutePolicy()
        #expect(try policy.choose(.speaker, available: Self.phone.union([.bluetooth])) == .speaker)
        // The system moved the call to the headset that just connected: back to the speaker.
        #expect(policy.afterReconfiguration(current: .bluetooth, available: Self.phone.union([.bluetooth])) == .speaker)
        #expect(policy.afterReconfiguration(current: .speaker, available: Self.phone.union([.bluetooth])) == nil)
        #expect(try policy.choose(.earpiece, available: Self.phone) == .earpiece)
        #expect(policy.afterReconfiguration(current: .speaker, available: Self.phone) == .earpiece)
    }

    @Test func withoutABuiltInChoiceAHeadsetIsRestoredBluetoothFirst() throws {
        var policy = AudioRoutePolicy()
        #expect(policy.afterReconfiguration(current: .earpiece, available: Self.phone.union([.bluetooth, .wiredHeadset])) == .bluetooth)
        #expect(policy.afterReconfiguration(current: .earpiece, available: Self.phone.union([.wiredHeadset])) == .wiredHeadset)
        #expect(policy.afterReconfiguration(current: .earpiece, available: Self.phone) == nil)   // the system's choice
        // Choosing a headset gives up the built-in choice.
        _ = try policy.choose(.speaker, available: Self.phone)
        #expect(try policy.choose(.wiredHeadset, available: Self.phone.union([.wiredHeadset])) == .wiredHeadset)
        #expect(policy.chosenBuiltIn == nil)
        #expect(policy.afterReconfiguration(current: .speaker, available: Self.phone.union([.bluetooth, .wiredHeadset])) == .bluetooth)
    }

    @Test func aRouteThatIsNotPresentIsNotFoundAndTheChoiceStays() throws {
        var policy = AudioRoutePolicy()
        _ = try policy.choose(.earpiece, available: Self.phone)
        #expect(throws: SRTCError.notFound("audio route bluetooth")) { try policy.choose(.bluetooth, available: Self.phone) }
        #expect(throws: SRTCError.notFound("audio route earpiece")) { try policy.choose(.earpiece, available: [.speaker]) }   // an iPad
        #expect(policy.chosenBuiltIn == .earpiece)
        // The chosen earpiece gone (not on this route list): a headset is restored instead.
        #expect(policy.afterReconfiguration(current: .speaker, available: [.speaker, .bluetooth]) == .bluetooth)
    }
}
