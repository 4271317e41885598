import Foundation
import RTCMedia
@testable import SRTCCore
@testable import SRTCDevices
import Synchronization
import TestWait
import Testing

/// Seed 000: a preview camera that cannot be opened, or that opens but sends no frame, gives way
/// to the other camera. `CameraFallback` is judged on the frames a real track delivers: here two
/// "cameras" feeding a custom `camera_big` track, one that opens and stays silent (as a camera
/// held by another process does) and one whose thread pushes frames.
@Suite struct CameraFallbackTests {
    /// A camera whose capture thread pushes frames into the track while open, or (silent) none.
    final class Source: @unchecked Sendable {
        let sends: Bool
        private let state = Mutex((open: false, opens: 0, closes: 0))
        init(sends: Bool) { self.sends = sends }
        var opens: Int { state.withLock { $0.opens } }
        var closes: Int { state.withLock { $0.closes } }

        func candidate(_ direction: CameraDirection, on track: LocalCustomVideoTrack, fails: Bool = false) -> CameraFallback.Candidate {
            CameraFallback.Candidate(direction: direction, open: { () async throws(SRTCError) in
                if fails { throw .systemError("cannot create an input") }
                self.state.withLock { $0.open = true; $0.opens += 1 }
                guard self.sends else { return }
                let frame = VideoFrame(buffer: try! VideoPixelBuffer(format: .i420, width: 64, height: 36), timestampUs: 0)
                Thread {
                    var n: Int64 = 0
                    while self.state.withLock({ $0.open }) {
                        _ = track.pushFrame(VideoFrame(buffer: frame.buffer, timestampUs: n * 33_333))
                        n += 1
                        usleep(33_000)
                    }
                }.start()
            }, close: { self.state.withLock { $0.open = false; $0.closes += 1 } })
        }

        func stop() { state.withLock { $0.open = false } }
    }

    static func track() -> (SRTCEngine, LocalCustomVideoTrack) {
        let engine = SRTCEngine(independent: .init(delegateQueue: DispatchQueue(label: "fallback"), logLevel: .off))
        return (engine, engine.createLocalCustomVideoTrack(desc: "camera_big", preset: VideoPreset(width: 64, height: 36, frameRate: 30, maxBitrate: 100_000)))
    }

    @Test func aCameraThatOpensButSendsNothingGivesWayToTheOther() async throws {
        let (engine, track) = Self.track()
        let silent = Source(sends: false), streaming = Source(sends: true)
        let direction = try await CameraFallback.open([silent.candidate(.front, on: track), streaming.candidate(.back, on: track)],
                                                      on: track, timeout: .milliseconds(500))
        #expect(direction == .back)
        #expect(silent.opens == 1 && silent.closes == 1, "the silent camera is closed before the other opens")
        #expect(streaming.opens == 1 && streaming.closes == 0, "the camera that streams stays open")
        streaming.stop()
        await engine.destroy()
    }

    @Test func aCameraThatStreamsIsKeptAndOneThatCannotOpenIsSkipped() async throws {
        let (engine, track) = Self.track()
        let first = Source(sends: true), other = Source(sends: true)
        #expect(try await CameraFallback.open([first.candidate(.front, on: track), other.candidate(.back, on: track)],
                                              on: track, timeout: .seconds(5)) == .front)
        #expect(other.opens == 0)
        first.stop()

        let broken = Source(sends: true), next = Source(sends: true)
        #expect(try await CameraFallback.open([broken.candidate(.back, on: track, fails: true), next.candidate(.front, on: track)],
                                              on: track, timeout: .seconds(5)) == .front)
        #expect(broken.opens == 0 && next.opens == 1)
        next.stop()
        await engine.destroy()
    }

    @Test func noCameraThatStreamsIsAnError() async throws {
        let (engine, track) = Self.track()
        let a = Source(sends: false), b = Source(sends: false)
        await #expect(throws: SRTCError.self) {
            _ = try await CameraFallback.open([a.candidate(.front, on: track), b.candidate(.back, on: track)], on: track, timeout: .milliseconds(300))
        }
        #expect(a.closes == 1 && b.closes == 1)
        await #expect(throws: SRTCError.notFound("no camera")) { _ = try await CameraFallback.open([], on: track) }
        await engine.destroy()
    }
}
