import Foundation
import Testing
import RTCNet
import SRTCProtocol
@testable import SRTCServer
import SRTCTestSupport

/// The static route of the web SDK and demo page: URL space, content types, caching, and every
/// way out of the directory refused (dot segments, encoded dots and slashes, absolute paths,
/// backslashes, NUL, hidden files, symbolic links leading out).
@Suite struct WebStaticTests {
    /// A temporary tree:
    /// ```
    /// base/secret.txt                 outside the served directory
    /// base/web/index.html, srtc.js, demo.css, lib/util.js, .hidden, sub/ (a directory)
    /// base/web/meet/index.html, meet/app.js   the meeting app
    /// base/web/out.js   -> ../secret.txt      (symbolic link out: refused)
    /// base/web/alias.js -> lib/util.js        (symbolic link inside: served)
    /// base/web/up       -> ..                 (directory link out: refused)
    /// ```
    final class Tree {
        let base: String
        let web: String

        init() throws {
            base = NSTemporaryDirectory() + "srtc-web-" + UUID().uuidString
            web = base + "/web"
            let fm = FileManager.default
            try fm.createDirectory(atPath: web + "/lib", withIntermediateDirectories: true)
            try fm.createDirectory(atPath: web + "/sub", withIntermediateDirectories: true)
            try fm.createDirectory(atPath: web + "/meet", withIntermediateDirectories: true)
            try Data("<!doctype html><title>meet</title>".utf8).write(to: URL(fileURLWithPath: web + "/meet/index.html"))
            try Data("export const app = 3;\n".utf8).write(to: URL(fileURLWithPath: web + "/meet/app.js"))
            try fm.createDirectory(atPath: web + "/play", withIntermediateDirectories: true)
            try Data("<!doctype html><title>play</title>".utf8).write(to: URL(fileURLWithPath: web + "/play/index.html"))
            try Data("TOP SECRET".utf8).write(to: URL(fileURLWithPath: base + "/secret.txt"))
            try Data("<!doctype html><title>demo</title>".utf8).write(to: URL(fileURLWithPath: web + "/index.html"))
            try Data("export const v = 1;\n".utf8).write(to: URL(fileURLWithPath: web + "/srtc.js"))
            try Data("body{}".utf8).write(to: URL(fileURLWithPath: web + "/demo.css"))
            try Data("export const u = 2;\n".utf8).write(to: URL(fileURLWithPath: web + "/lib/util.js"))
            try Data("hidden".utf8).write(to: URL(fileURLWithPath: web + "/.hidden"))
            try fm.createSymbolicLink(atPath: web + "/out.js", withDestinationPath: "../secret.txt")
            try fm.createSymbolicLink(atPath: web + "/alias.js", withDestinationPath: "lib/util.js")
            try fm.createSymbolicLink(atPath: web + "/up", withDestinationPath: "..")
        }

        deinit { try? FileManager.default.removeItem(atPath: base) }
    }

    let tree: Tree
    let files: StaticFiles

    init() throws {
        tree = try Tree()
        files = try #require(StaticFiles(directory: tree.web))
    }

    func get(_ target: String, method: String = "GET", headers: HTTPHeaders = HTTPHeaders()) -> HTTPResponse? {
        files.response(for: HTTPRequest(method: method, target: target, headers: headers), now: 1_800_000_000)
    }

    func errorCode(_ response: HTTPResponse?) -> Int? {
        guard let response else { return nil }
        return (try? JSONDecoder().decode(APIErrorBody.self, from: Data(response.body)))?.code
    }

    // MARK: - Serving

    @Test func rootServesIndexAsHTML() throws {
        let response = try #require(get("/"))
        #expect(response.status == 200)
        #expect(response.body == Array("<!doctype html><title>demo</title>".utf8))
        #expect(response.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(response.headers["Cache-Control"] == "no-cache")
        #expect(response.headers["X-Content-Type-Options"] == "nosniff")
        // ETag: a quoted 24-hex-digit prefix of the body's SHA-256.
        let etag = try #require(response.headers["ETag"])
        #expect(etag.count == 26 && etag.hasPrefix("\"") && etag.hasSuffix("\""))
    }

    @Test(arguments: [
        ("/sdk/srtc.js", "text/javascript; charset=utf-8", "export const v = 1;\n"),
        ("/sdk/lib/util.js", "text/javascript; charset=utf-8", "export const u = 2;\n"),
        ("/sdk/demo.css", "text/css; charset=utf-8", "body{}"),
        ("/sdk/srtc.js?v=3", "text/javascript; charset=utf-8", "export const v = 1;\n"),
        ("/sdk/alias.js", "text/javascript; charset=utf-8", "export const u = 2;\n"),
        ("/sdk/%73rtc.js", "text/javascript; charset=utf-8", "export const v = 1;\n"),
        // The meeting app: its page at /meet and /meet/, its files under /meet/.
        ("/meet", "text/html; charset=utf-8", "<!doctype html><title>meet</title>"),
        ("/meet/", "text/html; charset=utf-8", "<!doctype html><title>meet</title>"),
        ("/meet/?room=123456789", "text/html; charset=utf-8", "<!doctype html><title>meet</title>"),
        ("/meet/app.js", "text/javascript; charset=utf-8", "export const app = 3;\n"),
        ("/play/", "text/html; charset=utf-8", "<!doctype html><title>play</title>"),
        ("/play/?endpoint=/whep/v1/c/u&token=t", "text/html; charset=utf-8", "<!doctype html><title>play</title>"),
        ("/sdk/meet/app.js", "text/javascript; charset=utf-8", "export const app = 3;\n"),
    ])
    func filesAreServedWithTheirType(_ target: String, _ type: String, _ body: String) throws {
        let response = try #require(get(target))
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == type)
        #expect(response.body == Array(body.utf8))
    }

    @Test func matchingETagAnswers304WithoutBody() throws {
        let etag = try #require(get("/sdk/srtc.js")?.headers["ETag"])
        let response = try #require(get("/sdk/srtc.js", headers: ["If-None-Match": "\"other\", \(etag)"]))
        #expect(response.status == 304)
        #expect(response.body.isEmpty)
        #expect(response.headers["ETag"] == etag)
        #expect(get("/sdk/srtc.js", headers: ["If-None-Match": "\"other\""])?.status == 200)
    }

    @Test func otherMethodsAreRefusedWithAllow() throws {
        let response = try #require(get("/sdk/srtc.js", method: "POST"))
        #expect(response.status == 405)
        #expect(response.headers["Allow"] == "GET, HEAD")
    }

    @Test(arguments: ["/healthz", "/metrics", "/server/v1/channel/grant", "/rtc/v1/ws", "/srtc.js", "/demo.css", "/index.html", "/sdk", "/a/sdk/srtc.js",
                      "/meeting", "/meetx/app.js", "/a/meet/app.js", "/player", "/playx/index.html", "/whep/v1/c/u"])
    func pathsOutsideTheStaticSpaceAreLeftToTheRouter(_ path: String) {
        #expect(get(path) == nil)
    }

    // MARK: - Refusals

    @Test(arguments: [
        "/sdk/../secret.txt", "/sdk/lib/../../secret.txt", "/sdk/%2e%2e/secret.txt", "/sdk/%2E%2E%2Fsecret.txt",
        "/sdk/.%2e/secret.txt", "/sdk/lib/%2e/util.js", "/sdk//etc/passwd", "/sdk/%2Fetc%2Fpasswd", "/sdk/lib//util.js",
        "/sdk/..%5csecret.txt", "/sdk/lib%5c..%5c..%5csecret.txt", "/sdk/srtc.js%00.html", "/sdk/%zz.js", "/sdk/%c0%ae%c0%ae/secret.txt",
        "/meet/../secret.txt", "/meet/%2e%2e/secret.txt", "/meet//etc/passwd",
    ])
    func traversalIsRefusedAsABadPath(_ target: String) throws {
        let response = try #require(get(target))
        #expect(response.status == 400)
        #expect(errorCode(response) == APIErrorCode.invalidParameter.rawValue)
        #expect(!String(decoding: response.body, as: UTF8.self).contains("TOP SECRET"))
    }

    @Test(arguments: ["/sdk/out.js", "/sdk/up/secret.txt", "/sdk/.hidden", "/sdk/lib/.x.js",
                      "/sdk/missing.js", "/sdk/sub", "/sdk/lib", "/sdk/"])
    func escapesHiddenFilesAndDirectoriesAreNotFound(_ target: String) throws {
        let response = try #require(get(target))
        #expect(response.status == 404)
        #expect(errorCode(response) == APIErrorCode.notFound.rawValue)
        #expect(!String(decoding: response.body, as: UTF8.self).contains("TOP SECRET"))
    }

    // MARK: - Through the server

    @Test func theServerServesTheDirectoryBesideItsAPI() async throws {
        let tree = self.tree
        let server = try TestServer { $0.webDir = tree.web }
        #expect(server.app.webDirectory == tree.web)
        let client = HTTPClient()
        let index = try await client.get(server.httpBase + "/")
        #expect(index.status == 200)
        #expect(index.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(index.body == Array("<!doctype html><title>demo</title>".utf8))
        let sdk = try await client.get(server.httpBase + "/sdk/srtc.js")
        #expect(sdk.body == Array("export const v = 1;\n".utf8))
        let traversal = try await client.get(server.httpBase + "/sdk/../secret.txt")
        #expect(traversal.status == 400)
        #expect(try await client.get(server.httpBase + "/sdk/out.js").status == 404)
        #expect(try await client.get(server.httpBase + "/healthz").body == Array(#"{"draining":false,"status":"ok","version":"\#(ProductVersion.current)"}"#.utf8))
        await server.stop()
    }

    @Test func anEmptyWebDirServesNothing() async throws {
        let server = try TestServer { $0.webDir = "" }
        #expect(server.app.webDirectory == nil)
        let index = try await HTTPClient().get(server.httpBase + "/")
        #expect(index.status == 404)
        #expect(errorCode(index) == APIErrorCode.notFound.rawValue)
        await server.stop()
    }

    @Test func theDefaultDirectoryIsWebThenBesideTheBuildDirectory() {
        let dirs: Set<String> = ["/repo/web", "/checkout/web"]
        let exists = { (path: String) in dirs.contains(path) }
        // ./web wins when it exists.
        #expect(WebDirectory.resolve(configured: nil, currentDirectory: "/repo", executablePaths: ["/checkout/.build/debug/srtc-server"],
                                     isDirectory: exists) == "/repo/web")
        // Else <executable dir>/../../web, taken lexically (.build/debug may be a symbolic link).
        #expect(WebDirectory.resolve(configured: nil, currentDirectory: "/elsewhere", executablePaths: ["/checkout/.build/debug/srtc-server"],
                                     isDirectory: exists) == "/checkout/web")
        #expect(WebDirectory.resolve(configured: nil, currentDirectory: "/elsewhere", executablePaths: ["/opt/bin/srtc-server"],
                                     isDirectory: exists) == nil)
        // A configured directory is used as given (relative to the working directory); empty means none.
        #expect(WebDirectory.resolve(configured: "site/../www", currentDirectory: "/srv", executablePaths: [], isDirectory: exists) == "/srv/www")
        #expect(WebDirectory.resolve(configured: "", currentDirectory: "/repo", executablePaths: [], isDirectory: exists) == nil)
    }

    @Test func webDirComesFromFlagOrEnvironment() throws {
        #expect(try ServerConfig.load(arguments: ["--web-dir", "/srv/web"], environment: [:]).webDir == "/srv/web")
        #expect(try ServerConfig.load(arguments: [], environment: ["SRTC_WEB_DIR": "/env/web"]).webDir == "/env/web")
        #expect(try ServerConfig.load(arguments: ["--web-dir="], environment: ["SRTC_WEB_DIR": "/env/web"]).webDir == "")
        #expect(try ServerConfig.load(arguments: [], environment: [:]).webDir == nil)
    }

    @Test func aMissingDirectoryServesNothing() {
        #expect(StaticFiles(directory: tree.base + "/absent") == nil)
    }
}
