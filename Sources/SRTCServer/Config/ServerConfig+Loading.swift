import Foundation
import SRTCProtocol

/// Reading the settings: flags over `SRTC_*` variables over the config file, each through the one
/// table of `Setting`s (`ServerConfig.settings`), and `--help`'s text from the same table.
extension ServerConfig {
    /// Builds the configuration from command-line `arguments` (without the program name),
    /// `environment` and the config file named by `--config` / `SRTC_CONFIG`.
    public static func load(arguments: [String], environment: [String: String]) throws(ConfigError) -> ServerConfig {
        let flags = try parseFlags(arguments)
        var config = ServerConfig()
        if let path = flags["config"] ?? environment["SRTC_CONFIG"] {
            config.configFile = path
            for (key, value) in try readFile(path) {
                guard let setting = settings.first(where: { $0.jsonKey == key }) else { throw .unknownKey(key) }
                try applying(setting, value, to: &config)
            }
        }
        for setting in settings {
            if let value = environment[setting.envName] { try applying(setting, value, to: &config) }
        }
        for setting in settings {
            if let value = flags[setting.flag] { try applying(setting, value, to: &config) }
        }
        guard (config.appId == nil) == (config.appKey == nil) else { throw .appCredentialsIncomplete }
        guard (config.http.tlsCert == nil) == (config.http.tlsKey == nil) else { throw .tlsIncomplete }
        guard config.http.redirectPort == nil || config.http.tlsCert != nil else { throw .redirectWithoutTLS }
        return config
    }

    /// The help text of `srtc-server --help`.
    public static var usage: String {
        var lines = ["usage: srtc-server [--flag value]...", "", "Flags (environment variable in brackets; flags win over variables, variables over the config file):"]
        for s in settings {
            // `padding(toLength:)` also truncates: a long flag keeps its whole name and one space.
            let name = ("--" + s.flag).padding(toLength: max(30, s.flag.count + 3), withPad: " ", startingAt: 0)
            lines.append("  \(name) [\(s.envName)] \(s.help)")
        }
        lines.append("  --config                       [SRTC_CONFIG] JSON file with the same keys in snake_case")
        lines.append("  --help                         print this text")
        lines.append("  --version                      print the version (\(ProductVersion.current)) and exit")
        return lines.joined(separator: "\n")
    }

    private static func applying(_ setting: Setting, _ value: String, to config: inout ServerConfig) throws(ConfigError) {
        do { try setting.apply(&config, value) } catch let error as ConfigError { throw error } catch { throw .invalidValue(setting.flag, value) }
    }

    private static func parseFlags(_ arguments: [String]) throws(ConfigError) -> [String: String] {
        var flags: [String: String] = [:]
        var i = 0
        while i < arguments.count {
            let arg = arguments[i]
            guard arg.hasPrefix("--") else { throw .unexpectedArgument(arg) }
            var name = String(arg.dropFirst(2))
            var value: String
            if let eq = name.firstIndex(of: "=") {
                value = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            } else {
                guard i + 1 < arguments.count else { throw .missingValue(name) }
                i += 1
                value = arguments[i]
            }
            guard name == "config" || settings.contains(where: { $0.flag == name }) else { throw .unknownFlag(name) }
            flags[name] = value
            i += 1
        }
        return flags
    }

    private static func readFile(_ path: String) throws(ConfigError) -> [(String, String)] {
        guard let data = FileManager.default.contents(atPath: path) else { throw .unreadableFile(path) }
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else { throw .invalidFile(path) }
        return try object.keys.sorted().map { key throws(ConfigError) in
            switch object[key] {
            case let s as String: return (key, s)
            case let n as NSNumber: return (key, n.stringValue)
            default: throw .invalidValue(key, String(describing: object[key] ?? "null"))
            }
        }
    }

    static func port(_ v: String) throws(BadValue) -> UInt16 {
        guard let p = UInt16(v) else { throw BadValue() }
        return p
    }

    static func positive(_ v: String, _ name: String) throws(BadValue) -> Int {
        guard let n = Int(v), n > 0 else { throw BadValue() }
        return n
    }

    static func nonNegative(_ v: String, max: Int) throws(BadValue) -> Int {
        guard let n = Int(v), n >= 0, n <= max else { throw BadValue() }
        return n
    }
}
