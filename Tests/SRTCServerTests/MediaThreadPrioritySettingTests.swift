import Foundation
import Testing
import TestWait
import RTCNet
@testable import SRTCServer

/// `--media-thread-priority` (README, "Configuration"): parsed from a flag or a variable, refused
/// when unknown, and asked of the kernel for the SFU's I/O thread.
@Suite struct MediaThreadPrioritySettingTests {
    @Test func itIsNormalUnlessSetByFlagOrVariable() throws {
        #expect(try ServerConfig.load(arguments: [], environment: [:]).media.threadPriority == .normal)
        #expect(try ServerConfig.load(arguments: ["--media-thread-priority", "realtime"], environment: [:]).media.threadPriority == .realtime)
        #expect(try ServerConfig.load(arguments: [], environment: ["SRTC_MEDIA_THREAD_PRIORITY": "high"]).media.threadPriority == .high)
    }

    @Test func anUnknownPriorityIsRefused() {
        #expect(throws: ConfigError.invalidValue("media-thread-priority", "urgent")) {
            try ServerConfig.load(arguments: ["--media-thread-priority", "urgent"], environment: [:])
        }
    }

    @Test func everyMediaWorkersIOThreadRunsAtIt() async throws {
        let server = try MediaServer(bind: "127.0.0.1", port: 0, workers: 2, publicIP: nil, qualityIntervalSeconds: 1, threadPriority: .high)
        defer { server.stop() }
        #expect(server.workers.count == 2)
        for port in server.workers.map(\.sfu.port) {
            try await eventually("the I/O thread started") { port.ioThreadPriority != nil }
            // CI runs as root (CAP_SYS_NICE); elsewhere the kernel may allow less.
            if geteuid() == 0 { #expect(port.ioThreadPriority == .high) } else { #expect(port.ioThreadPriority! <= .high) }
        }
    }
}
