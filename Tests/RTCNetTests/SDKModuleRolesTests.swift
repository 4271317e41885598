import Foundation
import Testing
import TestWait

/// The Swift SDK's modules point one way (docs/architecture.md, "The SDK's modules"): the engine,
/// `SRTCCore`, depends on none of the role modules (IM, speed test, CDN player, …); each role
/// module depends on the engine; the umbrella `SRTC` depends on the engine and the role modules and
/// re-exports every one of them, so `import SRTC` keeps giving apps the documented names. The role
/// modules are read from the manifest (the umbrella's dependencies), so a new one is checked
/// without editing this test. The platform's device libraries (PulseAudio, X11, V4L2) are
/// `SRTCDevices`' alone: the engine reaches devices through the slot that module fills, never
/// by importing them (`PackageManifestTests` keeps the imports equal to the declared dependencies,
/// so an `import CPulse` in `Sources/SRTC` fails there or here).
struct SDKModuleRolesTests {
    static let core = "SRTCCore"
    static let umbrella = "SRTC"
    /// The roles moved out of the engine so far (issue 29, item 3): each must stay a module of
    /// its own, so moving one back into `SRTCCore` fails here. A new role module is checked by
    /// `problems` without being listed.
    static let movedOut: Set<String> = ["SRTCIM", "SRTCSpeedTest", "SRTCPlayer", "SRTCRender", "SRTCDevices"]
    /// The module of the platform's device drivers, and the C modules of those drivers: only it
    /// may depend on them.
    static let devices = "SRTCDevices"
    static let deviceShims: Set<String> = ["CPulse", "CX11", "CV4L2"]

    /// Every module `name` depends on, directly or through others.
    static func closure(of name: String, in targets: [String: PackageManifestTests.Target]) -> Set<String> {
        var seen: Set<String> = []
        var stack = Array(targets[name]?.dependencies ?? [])
        while let next = stack.popLast() {
            guard seen.insert(next).inserted else { continue }
            stack += targets[next]?.dependencies ?? []
        }
        return seen
    }

    /// The modules `@_exported import`ed by the Swift files under `directory`.
    static func exports(under directory: URL) -> Set<String> {
        var found: Set<String> = []
        let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)
        while let file = files?.nextObject() as? URL {
            guard file.pathExtension == "swift", let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
            for row in text.split(separator: "\n") {
                if let match = row.firstMatch(of: /^\s*@_exported\s+import\s+(\w+)/) { found.insert(String(match.output.1)) }
            }
        }
        return found
    }

    /// The problems of the SDK's layering, one line each.
    static func problems(_ targets: [String: PackageManifestTests.Target]) -> [String] {
        guard let umbrella = targets[umbrella], targets[core] != nil else { return ["no \(Self.umbrella) or \(core) target"] }
        var problems: [String] = []
        let roles = umbrella.dependencies.subtracting([core])
        let coreReaches = closure(of: core, in: targets)
        for role in roles.sorted() {
            if coreReaches.contains(role) { problems.append("\(core) depends on the role module \(role)") }
            if !(targets[role]?.dependencies.contains(core) ?? false) { problems.append("the role module \(role) does not depend on \(core)") }
        }
        if coreReaches.contains(Self.umbrella) { problems.append("\(core) depends on the umbrella \(Self.umbrella)") }
        for shim in coreReaches.intersection(deviceShims).sorted() { problems.append("\(core) depends on the device C module \(shim)") }
        for (name, target) in targets.sorted(by: { $0.key < $1.key }) where name != devices && target.kind != "testTarget" {
            for shim in target.dependencies.intersection(deviceShims).sorted() {
                problems.append("\(name) depends on the device C module \(shim), which only \(devices) may")
            }
        }
        if !umbrella.dependencies.contains(core) { problems.append("the umbrella \(Self.umbrella) does not depend on \(core)") }
        let exported = exports(under: umbrella.path)
        for missing in umbrella.dependencies.subtracting(exported).sorted() {
            problems.append("the umbrella \(Self.umbrella) does not re-export \(missing)")
        }
        return problems
    }

    @Test func theEngineDependsOnNoRoleModuleAndTheUmbrellaReexportsThemAll() async throws {
        let targets = try await onThread { Result { try PackageManifestTests.targets() } }.get()
        let roles = targets[Self.umbrella]?.dependencies.subtracting([Self.core]).sorted() ?? []
        print("SDK role modules: \(roles.joined(separator: ", ")) (\(roles.count)), on \(Self.core)")
        #expect(Self.problems(targets) == [])
        #expect(Self.movedOut.subtracting(roles).sorted() == [])
    }

    @Test func aCoreDependingOnARoleModuleIsCaught() async throws {
        var targets = try await onThread { Result { try PackageManifestTests.targets() } }.get()
        // A role module made up for the check, so it holds whatever the real ones are.
        targets["SRTCFeature"] = PackageManifestTests.Target(kind: "target", dependencies: [Self.core], path: targets[Self.core]!.path)
        targets[Self.umbrella]?.dependencies.insert("SRTCFeature")
        #expect(Self.problems(targets).contains("the umbrella SRTC does not re-export SRTCFeature"))
        targets[Self.core]?.dependencies.insert("SRTCFeature")
        #expect(Self.problems(targets).contains("SRTCCore depends on the role module SRTCFeature"))
        targets[Self.core]?.dependencies.remove("SRTCFeature")
        targets["SRTCFeature"]?.dependencies = []
        #expect(Self.problems(targets).contains("the role module SRTCFeature does not depend on SRTCCore"))
    }

    @Test func anEngineImportingADeviceModuleIsCaught() async throws {
        var targets = try await onThread { Result { try PackageManifestTests.targets() } }.get()
        #expect(targets[Self.devices]?.dependencies.isSuperset(of: Self.deviceShims) == true)
        #expect(Self.problems(targets) == [])
        targets[Self.core]?.dependencies.insert("CPulse")
        #expect(Self.problems(targets).contains("SRTCCore depends on the device C module CPulse"))
        #expect(Self.problems(targets).contains("SRTCCore depends on the device C module CPulse, which only SRTCDevices may"))
        // Through another module the engine depends on, too.
        targets[Self.core]?.dependencies.remove("CPulse")
        targets["RTCMedia"]?.dependencies.insert("CV4L2")
        #expect(Self.problems(targets).contains("SRTCCore depends on the device C module CV4L2"))
    }
}
