#if os(Linux)
import Foundation
import Glibc
import RTCMedia
import SRTC
import SRTCTestSupport
import Synchronization
import TestWait
import Testing

/// Seed 001's screen capture sources on Linux: the screens and windows of a real X server (Xvfb),
/// a window shared alone, and windows cut out of a whole-screen share, each checked by what a
/// subscriber decodes through the real server.
@Suite(.serialized) struct ScreenSourceShareTests {
    /// Keeps, per decoded frame, its size, its pattern number and the mean luma of one rectangle.
    final class Probe: VideoRenderer, @unchecked Sendable {
        struct Seen { var width: Int, height: Int, number: Int?, luma: Double }
        private let seen = Mutex<[Seen]>([])
        let rect: ScreenRect

        init(rect: ScreenRect) { self.rect = rect }

        func render(frame: VideoFrame) {
            let buffer = frame.buffer.toI420()
            let area = rect.intersection(ScreenRect(x: 0, y: 0, width: buffer.width, height: buffer.height))
            let plane = buffer.plane(0)
            let luma = buffer.withPlane(0) { y -> Double in
                guard !area.isEmpty else { return -1 }
                var sum = 0
                for row in area.y..<(area.y + area.height) {
                    for column in area.x..<(area.x + area.width) { sum += Int(y[plane.offset + row * plane.stride + column]) }
                }
                return Double(sum) / Double(area.width * area.height)
            }
            let entry = Seen(width: frame.width, height: frame.height, number: TestPatternReader.frameNumber(in: frame), luma: luma)
            seen.withLock { $0.append(entry) }
        }

        var count: Int { seen.withLock { $0.count } }
        /// Frames decoded after the first `from`.
        func since(_ from: Int) -> [Seen] { seen.withLock { Array($0.dropFirst(from)) } }
    }

    @Test func windowsAreListedSharedAloneAndCutOutOfTheScreen() async throws {
        let xvfb = try await XvfbServer.start(width: 320, height: 240)
        let server = try SDKTestServer()
        let sharer = SDKPeer(), viewer = SDKPeer()
        // A numbered pattern over the whole screen, and on top of it a smaller window with its own.
        let background = try SRTCVideoRenderer(display: xvfb.display, x: 0, y: 0, width: 320, height: 240, title: "background")
        let side = try SRTCVideoRenderer(display: xvfb.display, x: 160, y: 120, width: 160, height: 120, title: "side ▶")
        let feeders = [try DeviceVideoTests.ViewFeeder(background, width: 320, height: 240, fps: 15),
                       try DeviceVideoTests.ViewFeeder(side, width: 160, height: 120, fps: 15)]

        // Listed: the one screen, and both windows with their titles, places and owner.
        let displays = try await ScreenCaptureSources.availableDisplays(server: xvfb.display)
        #expect(displays == [DisplaySource(id: 0, width: 320, height: 240, server: xvfb.display)])
        let windows = try await ScreenCaptureSources.availableWindows(server: xvfb.display)
        let sideWindow = try #require(windows.first { $0.id == side.windowId }, "listed: \(windows)")
        #expect(sideWindow.title == "side ▶" && sideWindow.frame == ScreenRect(x: 160, y: 120, width: 160, height: 120))
        #expect(sideWindow.processId == getpid() && sideWindow.applicationName == "SRTC")
        #expect(windows.map(\.id) == [background.windowId, side.windowId], "bottom to top")
        await #expect(throws: SRTCError.self) { try await ScreenCaptureSources.availableWindows(server: ":9999") }

        // Inside the side window, away from its edges (where the codec blurs into the neighbours).
        let probe = Probe(rect: ScreenRect(x: 168, y: 128, width: 144, height: 104))
        try await viewer.channel.join(url: server.url, token: server.token(uid: "viewer", channel: "sources"))
        try await sharer.channel.join(url: server.url, token: server.token(uid: "sharer", channel: "sources"))
        let screen = sharer.engine.createLocalScreenTrack(preset: VideoPreset(width: 320, height: 240, frameRate: 15, maxBitrate: 500_000))

        // One window alone: its own size, its own numbers.
        try await screen.startCapture(source: sideWindow)
        try await sharer.channel.publishLocalTrack(screen)
        try await viewer.events.wait(for: "track+ sharer screen")
        let remote = try #require(viewer.channel.remoteTrack(uid: "sharer", desc: "screen") as? RemoteVideoTrack)
        remote.add(videoRenderer: probe)
        try await viewer.channel.subscribe(remote)
        try await eventually(timeout: 15, "the side window decoded alone") {
            Set(probe.since(0).filter { $0.width == 160 }.compactMap(\.number)).count >= 10
        }
        #expect(probe.since(0).allSatisfy { $0.width == 160 && $0.height == 120 }, "only the window's size")

        // The whole screen, then cut out: the side window's rectangle goes black, the rest stays.
        // Frames are counted from the first one that shows the change (some were on their way).
        func phase(_ what: String, _ start: () async throws -> Void, shows: @escaping (Probe.Seen) -> Bool) async throws -> [Probe.Seen] {
            let before = probe.count
            try await start()
            try await eventually(timeout: 15, "\(what): a frame shows it") { probe.since(before).contains(where: shows) }
            let first = before + probe.since(before).firstIndex(where: shows)!
            try await eventually(timeout: 15, "\(what): 10 more frames") { probe.count >= first + 10 }
            return Array(probe.since(first).prefix(10))
        }
        let whole = try await phase("the whole screen", { try await screen.startCapture(source: displays[0]) }) { $0.width == 320 }
        let cut = try await phase("the side window cut out", {
            try await screen.startCapture(source: displays[0], excludedWindowIds: [side.windowId])
        }) { $0.luma < 30 }
        let mean = { (frames: [Probe.Seen]) in frames.map(\.luma).reduce(0, +) / Double(max(1, frames.count)) }
        print("side rectangle's mean luma: whole screen \(mean(whole)), cut out \(mean(cut)) (\(cut.map { Int($0.luma) }))")
        #expect(mean(whole) > 40, "the side window's pattern shows in the whole screen")
        #expect(cut.allSatisfy { $0.luma < 24 }, "black where the side window is: \(cut.map(\.luma))")

        // The current application: both windows are this process's, so nothing of them is left.
        let probeAll = Probe(rect: ScreenRect(x: 0, y: 0, width: 320, height: 240))
        remote.add(videoRenderer: probeAll)
        try await screen.startCapture(source: displays[0], excludedWindowIds: [], excludesCurrentApplication: true)
        let from = probeAll.count
        try await eventually(timeout: 15, "frames of the emptied screen") {
            probeAll.since(from).filter { $0.luma < 24 }.count >= 10
        }
        #expect(probeAll.since(from).suffix(5).allSatisfy { $0.number == nil }, "no pattern left on the screen")

        screen.stopCapture()
        for feeder in feeders { feeder.stop() }
        background.close()
        side.close()
        await sharer.channel.leave()
        await viewer.channel.leave()
        await server.stop()
        await xvfb.stop()
    }
}
#endif
