import Foundation
import SRTC

/// A tiny flag parser: `--name value`, `--name=value` and boolean `--name`; no outside package.
struct Options {
    private(set) var values: [String: String] = [:]
    private(set) var positional: [String] = []
    private(set) var flags: Set<String> = []
    /// Every value of a repeatable option, in order.
    private(set) var repeated: [String: [String]] = [:]

    /// Parses `arguments`; names in `booleans` take no value; names in `repeatable` may be given
    /// several times (`all(_:)`).
    init(_ arguments: ArraySlice<String>, booleans: Set<String> = ["help"], repeatable: Set<String> = []) throws(CLIError) {
        var it = arguments.makeIterator()
        while let arg = it.next() {
            if arg.hasPrefix("--") {
                var name = String(arg.dropFirst(2))
                if let eq = name.firstIndex(of: "=") {
                    values[String(name[..<eq])] = String(name[name.index(after: eq)...])
                    continue
                }
                if booleans.contains(name) || name == "help" {
                    flags.insert(name)
                    continue
                }
                guard let value = it.next() else { throw .usage("--\(name) needs a value") }
                name = name.trimmingCharacters(in: [])
                values[name] = value
                if repeatable.contains(name) { repeated[name, default: []].append(value) }
            } else if arg == "-h" {
                flags.insert("help")
            } else {
                positional.append(arg)
            }
        }
    }

    subscript(_ name: String) -> String? { values[name] }

    /// Every value given for a repeatable option.
    func all(_ name: String) -> [String] { repeated[name] ?? [] }

    func require(_ name: String, env: String? = nil, environment: [String: String]) throws(CLIError) -> String {
        if let v = values[name] { return v }
        if let env, let v = environment[env] { return v }
        throw .usage("missing --\(name)" + (env.map { " (or \($0))" } ?? ""))
    }

    var wantsHelp: Bool { flags.contains("help") }

    /// Fails on options no command knows, so typos don't pass silently.
    func rejectUnknown(allowed: Set<String>) throws(CLIError) {
        for name in values.keys where !allowed.contains(name) { throw .usage("unknown option --\(name)") }
        for name in flags where !allowed.contains(name) && name != "help" { throw .usage("unknown option --\(name)") }
    }
}

/// A CLI failure: usage errors exit 2, others 1.
enum CLIError: Error, CustomStringConvertible {
    case usage(String)
    case failed(String)

    var description: String {
        switch self {
        case .usage(let s): return s
        case .failed(let s): return s
        }
    }
}

extension CLIError {
    /// Runs an SDK call whose error ends the command (`.failed` with the SDK's description).
    static func sdk<T>(_ body: () throws(SRTCError) -> T) throws(CLIError) -> T {
        do { return try body() } catch { throw .failed("\(error)") }
    }
}
