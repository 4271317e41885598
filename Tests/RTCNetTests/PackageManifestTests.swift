import Foundation
import Testing
import TestWait

/// The module layering is declared, not implied: every module a target imports is a dependency
/// it names in Package.swift, and every Swift module it names is imported somewhere in it (a
/// whole-tree check, like `CallbackSlotTests`). SwiftPM builds an undeclared import only when the
/// module happens to be built first, and a stale declaration hides the real layering.
struct PackageManifestTests {
    struct Target {
        var kind: String
        var dependencies: Set<String>
        var path: URL
    }

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL

    /// The targets of Package.swift: kind, dependencies by name, and the directory of their sources.
    static func targets() throws -> [String: Target] {
        // A platform-conditional dependency (`.target(name: "CX11", condition: .when(...))`) counts
        // by its name; a dependency list may go on over several lines: continuation lines start
        // with a name.
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
            .replacing(/\.target\(name:\s*("[^"]+"),\s*condition:\s*\.when\([^)]*\)\)/) { String($0.output.1) }
            .replacing(/,\s*\n\s*"/, with: ", \"")
        let declaration = try Regex(#"\.(target|executableTarget|testTarget|systemLibrary)\(\s*name:\s*"([^"]+)"([^\n]*)"#)
        var targets: [String: Target] = [:]
        for match in manifest.matches(of: declaration) {
            let kind = String(match.output[1].substring ?? ""), name = String(match.output[2].substring ?? "")
            let rest = String(match.output[3].substring ?? "")
            var dependencies: Set<String> = []
            if let list = rest.firstMatch(of: /dependencies:\s*\[([^\]]*)\]/) {
                dependencies = Set(list.output.1.matches(of: /"([^"]+)"/).map { String($0.output.1) })
            }
            let path = rest.firstMatch(of: /path:\s*"([^"]+)"/).map { String($0.output.1) }
                ?? (kind == "testTarget" ? "Tests/" : "Sources/") + name
            targets[name] = Target(kind: kind, dependencies: dependencies, path: root.appendingPathComponent(path))
        }
        return targets
    }

    /// The modules imported by the Swift files under `directory` (attributes such as `@testable` allowed).
    static func imports(under directory: URL) -> Set<String> {
        let line = /^\s*(?:@\w+(?:\([^)]*\))?\s+)*import\s+(\w+)/
        var found: Set<String> = []
        let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)
        while let file = files?.nextObject() as? URL {
            guard file.pathExtension == "swift", let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
            for row in text.split(separator: "\n") {
                if let match = row.firstMatch(of: line) { found.insert(String(match.output.1)) }
            }
        }
        return found
    }

    /// The problems found, one line each (the scan reads the whole tree: it runs on its own thread).
    static func problems() throws -> [String] {
        let targets = try targets()
        guard targets.count > 30, targets["SFU"] != nil, targets["SRTCTestSupport"] != nil else { return ["Package.swift was not read"] }
        var problems: [String] = []
        for (name, target) in targets.sorted(by: { $0.key < $1.key }) where target.kind != "systemLibrary" {
            // C targets keep their dependencies for headers the Swift scan cannot see.
            guard !FileManager.default.fileExists(atPath: target.path.appendingPathComponent("include").path) else { continue }
            let imported = imports(under: target.path).intersection(targets.keys)
            let undeclared = imported.subtracting(target.dependencies)
            if !undeclared.isEmpty { problems.append("\(name) imports undeclared \(undeclared.sorted())") }
            // Every test target may name TestRandom, the shared seeded generator, before it needs it.
            let unused = target.dependencies.subtracting(imported).subtracting(["TestRandom"])
            if !unused.isEmpty { problems.append("\(name) declares but never imports \(unused.sorted())") }
        }
        return problems
    }

    @Test func everyImportedModuleIsADeclaredDependencyAndEveryDeclaredOneIsImported() async throws {
        let problems = try await onThread { Result { try Self.problems() } }.get()
        #expect(problems == [])
    }
}
