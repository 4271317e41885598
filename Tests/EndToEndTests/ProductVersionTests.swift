import Foundation
import Processes
import RTCNet
import SRTC
import SRTCProtocol
import SRTCTestSupport
import Testing
import TestWait

/// One version everywhere (`version` of the engine page): the SDK's `SRTCEngine.version`, the two
/// executables' `--version`, the server's `GET /healthz` and the web SDK's `SDK_VERSION` all say
/// `ProductVersion.current`, a semantic version.
struct ProductVersionTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL

    /// SemVer 2.0.0's own expression (semver.org, "Is there a suggested regular expression").
    static func isSemanticVersion(_ text: String) -> Bool {
        text.wholeMatch(of: #/(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?/#) != nil
    }

    @Test func theEngineReportsTheReleaseAsASemanticVersion() throws {
        #expect(SRTCEngine.version == ProductVersion.current)
        #expect(Self.isSemanticVersion(SRTCEngine.version), "\(SRTCEngine.version)")
        #expect(Self.isSemanticVersion("1.20.3-rc.1+build.5"))
        for bad in ["0.1", "01.2.3", "1.2.3-", "1.2.3+", "v1.2.3", ""] {
            #expect(!Self.isSemanticVersion(bad), "\(bad)")
        }
    }

    @Test(arguments: [("srtc", ["--version"]), ("srtc", ["version"]), ("srtc-server", ["--version"])])
    func theExecutablesPrintTheSameVersion(tool: String, arguments: [String]) async throws {
        let process = try ChildProcess(EgressTestServer.buildDirectory + "/" + tool, arguments, pipeOutput: true)
        defer { process.signal(SIGTERM) }
        let status = await process.waitForExit(timeout: 30)
        #expect(status == 0, "\(tool) \(arguments) exited")
        let printed = status == -1 ? "" : await onThread { String(decoding: process.output!.readDataToEndOfFile(), as: UTF8.self) }
        #expect(printed == "\(tool) \(SRTCEngine.version)\n")
    }

    @Test func theServerAnswersItsVersionOnHealthz() async throws {
        let server = try TestServer()
        let response = try await HTTPClient().get(server.httpBase + "/healthz")
        await server.stop()
        let json = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        #expect(json["status"] as? String == "ok" && json["version"] as? String == SRTCEngine.version, "\(json)")
    }

    /// The web SDKs send `srtc-web/<SDK_VERSION>` at join: the same release.
    @Test(arguments: ["web/srtc/channel.js", "web/smeeting/engine.js"])
    func theWebSDKDeclaresTheSameVersion(file: String) throws {
        let source = try String(contentsOf: Self.root.appendingPathComponent(file), encoding: .utf8)
        let declared = try #require(source.firstMatch(of: #/export const SDK_VERSION = '([^']*)';/#), "no SDK_VERSION in \(file)")
        #expect(String(declared.1) == SRTCEngine.version)
    }
}
