import Foundation
import Processes
import RTCMedia
import TestWait

/// A throwaway X server for one test: Xvfb on a display number it picks itself (`-displayfd`),
/// its framebuffer mapped to a file (`-fbdir`), so a screenshot is a file read, taken by nobody
/// but the X server.
public final class XvfbServer: Sendable {
    /// The display name clients pass (`:3`).
    public let display: String
    public let width: Int
    public let height: Int
    private let directory: String
    private let server: ChildProcess

    private init(display: String, width: Int, height: Int, directory: String, server: ChildProcess) {
        self.display = display
        self.width = width
        self.height = height
        self.directory = directory
        self.server = server
    }

    /// Starts Xvfb with one 24-bit screen of `width`×`height`. Xvfb started by several tests at
    /// the same moment can lose the race for a display number and exit; such a start is tried
    /// again (three times in all), and the last failure carries what Xvfb printed.
    /// - Throws: `TestDaemon.Failure` when no start reports a display within 10 s.
    public static func start(width: Int, height: Int) async throws -> XvfbServer {
        var failure = ""
        for _ in 0..<3 {
            switch try await attempt(width: width, height: height) {
            case .success(let server): return server
            case .failure(let reason): failure = reason.description
            }
        }
        throw TestDaemon.Failure(description: failure)
    }

    private static func attempt(width: Int, height: Int) async throws -> Result<XvfbServer, TestDaemon.Failure> {
        let directory = try TestDaemon.makeDirectory("srtc-xvfb")
        let log = directory + "/xvfb.log"
        let server = try ChildProcess("Xvfb", ["-displayfd", "1", "-screen", "0", "\(width)x\(height)x24", "-fbdir", directory,
                                               "-nolisten", "tcp", "-noreset"], pipeOutput: true, log: log)
        try TestDaemon.cleanUpAfterExit("kill \(server.pid) 2>/dev/null; rm -rf \(directory)")
        // Xvfb writes the display number and a newline to fd 1 once it accepts clients (EOF if it fails).
        let number = await onThread { () -> String? in
            var text = ""
            while !text.hasSuffix("\n") {
                let data = server.output!.availableData
                if data.isEmpty { break }
                text += String(decoding: data, as: UTF8.self)
            }
            return Int(text.trimmingCharacters(in: .whitespacesAndNewlines)).map(String.init)
        }
        guard let number else {
            await server.stop()
            let printed = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            try? FileManager.default.removeItem(atPath: directory)
            return .failure(TestDaemon.Failure(description: "Xvfb reported no display: \(printed.suffix(600))"))
        }
        return .success(XvfbServer(display: ":\(number)", width: width, height: height, directory: directory, server: server))
    }

    /// The screen now, as BGRA pixels.
    /// - Throws: when the framebuffer file cannot be read or parsed.
    public func screenshot() throws -> VideoPixelBuffer {
        try XWDImage.parse(Array(try Data(contentsOf: URL(fileURLWithPath: directory + "/Xvfb_screen0"))))
    }

    public func stop() async {
        await server.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
