@testable import SRTCCore
@testable import SRTCDevices
import Testing

/// Seed 001's `deviceId` (issue 28 item 3): the rule the Apple microphone layer applies before it
/// routes the capture (`MicrophoneRoute`), tested here on the devices a listing gives.
@Suite struct DeviceSelectionTests {
    static let microphones = [
        MediaDevice(deviceId: "Built-In Microphone", kind: .audioInput, label: "iPhone Microphone", isDefault: true),
        MediaDevice(deviceId: "BT:00:11:22", kind: .audioInput, label: "AirPods"),
    ]

    @Test func noDeviceIdLeavesTheSystemsChoice() throws {
        #expect(try DeviceSelection.pick(nil, among: Self.microphones) == nil)
        #expect(try DeviceSelection.pick(nil, among: []) == nil)
    }

    @Test func aListedDeviceIdIsTheDeviceOpened() throws {
        #expect(try DeviceSelection.pick("BT:00:11:22", among: Self.microphones) == Self.microphones[1])
        #expect(try DeviceSelection.pick("Built-In Microphone", among: Self.microphones)?.label == "iPhone Microphone")
    }

    @Test func aDeviceIdNotListedIsNotFound() {
        #expect(throws: SRTCError.self) { try DeviceSelection.pick("gone", among: Self.microphones) }
        do {
            _ = try DeviceSelection.pick("gone", among: Self.microphones)
        } catch {
            #expect(error.code == 1010)
        }
    }
}
