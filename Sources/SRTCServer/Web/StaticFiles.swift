import Foundation
import RTCCrypto
import RTCNet
#if canImport(Glibc)
import Glibc
#endif

/// Serves the files of one directory (the web SDK and the demo page) read-only.
///
/// URL space: `/` is `index.html`; `/sdk/<path>` is any file under the directory; each app of
/// `apps` (`/meet`, the meeting app; `/play`, the WHEP player) is its `index.html` at `/meet` and
/// `/meet/`, and its files under `meet/` at `/meet/<path>`. Every
/// other path is not static and goes to the API router. A path is refused when it holds
/// `.` or `..` segments, empty segments (which would make it absolute), backslashes, control
/// characters or bad percent-encoding; a file is not found when it is hidden (`.name`), not a
/// regular file, or a symbolic link that leads out of the directory.
struct StaticFiles: Sendable {
    /// The directory, with symbolic links resolved (every served file must resolve under it).
    let root: String
    /// Larger files are not served (the directory holds a few small scripts).
    static let maxFileBytes = 16 << 20

    /// - Parameter directory: the directory to serve; `nil` when it does not exist.
    init?(directory: String) {
        guard let resolved = Self.realPath(directory), WebDirectory.isDirectory(resolved) else { return nil }
        root = resolved == "/" ? "" : resolved
    }

    // MARK: - Requests

    /// The answer to a request for a static path, or `nil` when the path is not static.
    func response(for request: HTTPRequest, now: Int64) -> HTTPResponse? {
        guard let encoded = Self.staticTarget(request.path) else { return nil }
        return response(for: request, target: encoded, now: now)
    }

    /// The answer for the file at the still-encoded relative path `encoded`.
    func response(for request: HTTPRequest, target encoded: Substring, now: Int64) -> HTTPResponse {
        guard request.method == "GET" || request.method == "HEAD" else {
            var response = APIRouter.error(.methodNotAllowed, "\(request.method) not allowed on static files", now: now)
            response.headers.add(name: "Allow", value: "GET, HEAD")
            return response
        }
        let relative: String
        let body: [UInt8]
        do {
            relative = try Self.relativePath(encoded)
            body = try read(relative)
        } catch .badPath(let why) {
            return APIRouter.error(.invalidParameter, "bad path: \(why)", now: now)
        } catch {
            return APIRouter.error(.notFound, "no file \(request.path)", now: now)
        }
        let etag = "\"" + Encoding.hex(Digest.sha256(body).prefix(12)) + "\""
        var headers = HTTPHeaders()
        headers.add(name: "ETag", value: etag)
        // Revalidate every time: the SDK and page change with the server, and a 304 is cheap.
        headers.add(name: "Cache-Control", value: "no-cache")
        headers.add(name: "X-Content-Type-Options", value: "nosniff")
        if let tags = request.headers["If-None-Match"],
           tags.split(separator: ",").contains(where: { let t = $0.trimmingCharacters(in: .whitespaces); return t == etag || t == "W/" + etag || t == "*" }) {
            return HTTPResponse(status: 304, headers: headers)
        }
        headers.add(name: "Content-Type", value: Self.contentType(of: relative))
        return HTTPResponse(status: 200, headers: headers, body: body)
    }

    /// Whether a request path is in the static URL space (answered by `response(for:now:)`).
    static func isStatic(_ path: Substring) -> Bool { staticTarget(path) != nil }

    /// The still-encoded path relative to the directory, or `nil` outside the static URL space.
    static func staticTarget(_ path: Substring) -> Substring? {
        if path == "/" { return "index.html" }
        if path.hasPrefix("/sdk/") { return path.dropFirst(5) }
        // An app: its page and files live in its folder (a `/meet/<room number>` link is a
        // query, `/meet/?room=…`, so every path under `/meet/` is a file).
        for app in apps {
            if path.dropFirst() == app || path.dropFirst().dropLast() == app && path.hasSuffix("/") { return Substring(app + "/index.html") }
            if path.hasPrefix("/" + app + "/") { return path.dropFirst(1) }
        }
        return nil
    }

    /// The pages served with their files from a folder of the same name: the meeting app and the
    /// WHEP player (docs/ingress.md, "The WHEP player page").
    static let apps = ["meet", "play"]

    /// Decodes and checks a relative path; the result has only plain, non-empty segments.
    static func relativePath(_ encoded: Substring) throws(StaticFileError) -> String {
        guard let decoded = percentDecoded(encoded) else { throw .badPath("bad percent-encoding") }
        guard !decoded.isEmpty else { throw .notFound }
        guard !decoded.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F || $0 == "\\" }) else {
            throw .badPath("control character or backslash")
        }
        let segments = decoded.split(separator: "/", omittingEmptySubsequences: false)
        for segment in segments {
            guard !segment.isEmpty else { throw .badPath("empty segment or absolute path") }
            guard segment != ".", segment != ".." else { throw .badPath("dot segment") }
            guard !segment.hasPrefix(".") else { throw .notFound }
        }
        return decoded
    }

    // MARK: - Files

    /// Reads `relative` if it resolves to a regular file inside the directory.
    func read(_ relative: String) throws(StaticFileError) -> [UInt8] {
        guard let resolved = Self.realPath(root + "/" + relative), resolved.hasPrefix(root + "/") else { throw .notFound }
        let fd = open(resolved, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { throw .notFound }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { throw .notFound }
        let size = Int(info.st_size)
        guard size <= Self.maxFileBytes else { throw .notFound }
        var bytes = [UInt8](repeating: 0, count: size)
        var done = 0
        while done < size {
            let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + done, size - done) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            done += n
        }
        return Array(bytes[..<done])
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    // MARK: - Helpers

    static let knownTypes: [String: String] = [
        "html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8", "mjs": "text/javascript; charset=utf-8",
        "css": "text/css; charset=utf-8", "json": "application/json", "map": "application/json",
        "svg": "image/svg+xml", "png": "image/png", "ico": "image/x-icon", "txt": "text/plain; charset=utf-8",
        "md": "text/markdown; charset=utf-8", "wasm": "application/wasm",
        // HLS (RFC 8216 §4) and recordings.
        "m3u8": "application/vnd.apple.mpegurl", "ts": "video/mp2t", "webm": "video/webm", "mp4": "video/mp4",
    ]

    static func contentType(of path: String) -> String {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return "application/octet-stream" }
        return knownTypes[path[path.index(after: dot)...].lowercased()] ?? "application/octet-stream"
    }

    /// RFC 3986 §2.1 percent-decoding of a path (`+` stays a plus); `nil` on a bad escape or non-UTF-8.
    static func percentDecoded(_ text: Substring) -> String? {
        var out: [UInt8] = []
        var bytes = Array(text.utf8)[...]
        while let c = bytes.popFirst() {
            guard c == UInt8(ascii: "%") else { out.append(c); continue }
            guard bytes.count >= 2, let h = hexValue(bytes.removeFirst()), let l = hexValue(bytes.removeFirst()) else { return nil }
            out.append(h << 4 | l)
        }
        return String(validating: out, as: UTF8.self)
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case 48...57: return c - 48
        case 65...70: return c - 55
        case 97...102: return c - 87
        default: return nil
        }
    }
}

/// Why a static file was not served.
enum StaticFileError: Error, Sendable, Equatable {
    /// The path is malformed or tries to leave the directory (answered 400).
    case badPath(String)
    /// No such file, or one that may not be served (answered 404).
    case notFound
}
