import Foundation

/// Finds the directory of the web SDK and demo page that the server serves at `/` and `/sdk/`.
///
/// `--web-dir` / `SRTC_WEB_DIR` names it; an empty value turns static serving off. Without a
/// setting the server looks, in order, for `./web` (a checkout's root, where `make serve` runs),
/// then `<executable dir>/../../web` (the checkout of a binary in `.build/debug/` or
/// `.build/release/`); with neither, nothing is served.
enum WebDirectory {
    /// The directory to serve, or `nil` for none.
    /// - Parameters:
    ///   - configured: `ServerConfig.webDir` (`nil`: look for a default; empty: none).
    ///   - currentDirectory: the process's working directory.
    ///   - executablePaths: the running binary as invoked (`argv[0]`) and as resolved
    ///     (`/proc/self/exe`); the first gives `.build/debug/../../web` even when `.build/debug`
    ///     is a symbolic link into the triple directory.
    ///   - isDirectory: whether a path names a directory (injectable for tests).
    static func resolve(configured: String?, currentDirectory: String, executablePaths: [String],
                        isDirectory: (String) -> Bool = WebDirectory.isDirectory) -> String? {
        if let configured {
            return configured.isEmpty ? nil : absolute(configured, from: currentDirectory)
        }
        var candidates = [absolute("web", from: currentDirectory)]
        for executable in executablePaths where !executable.isEmpty {
            let binDir = (absolute(executable, from: currentDirectory) as NSString).deletingLastPathComponent
            candidates.append(lexicallyNormalized(binDir + "/../../web"))
        }
        return candidates.first(where: isDirectory)
    }

    /// The directory for this process: the configured one or the first default that exists.
    /// A configured directory that does not exist is reported and nothing is served.
    static func resolveForProcess(configured: String?) -> String? {
        var executables: [String] = []
        if let first = CommandLine.arguments.first, first.contains("/") { executables.append(first) }
        if let resolved = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { executables.append(resolved) }
        let directory = resolve(configured: configured, currentDirectory: FileManager.default.currentDirectoryPath, executablePaths: executables)
        if let directory, !isDirectory(directory) {
            Log.warn("web", "web directory \(directory) does not exist; the demo page and /sdk/ are not served")
            return nil
        }
        if let directory { Log.info("web", "serving \(directory) at / and /sdk/") }
        return directory
    }

    static func isDirectory(_ path: String) -> Bool {
        var isDir: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDir) && isDir.boolValue
    }

    private static func absolute(_ path: String, from base: String) -> String {
        lexicallyNormalized(path.hasPrefix("/") ? path : base + "/" + path)
    }

    /// Removes `.`, `..` and empty components without touching the file system, so `..` climbs
    /// the path as written (Foundation's `standardizingPath` may resolve symbolic links first).
    static func lexicallyNormalized(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/") {
            switch part {
            case ".": continue
            case "..": if !parts.isEmpty { parts.removeLast() }
            default: parts.append(part)
            }
        }
        return "/" + parts.joined(separator: "/")
    }
}
