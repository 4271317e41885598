import Foundation
import SRTCCore
import SRTCProtocol
import TestWait

extension LabScenario {
    /// 150 kbit/s toward the subscriber, below the smallest layer plus audio: the video pauses with
    /// an event, audio goes on, and the video resumes by itself when the link returns (issue 26).
    public struct Pause: Sendable, CustomStringConvertible {
        /// Seconds from the limit to `layer_switched` none, and the layer it left.
        public var paused: Double
        public var pausedFrom: String?
        /// The quiet window measured while paused (from 1 s after the pause, 6 s long).
        public var quietSeconds: Double
        public var framesWhilePaused: Int
        /// Test-pattern numbers decoded in the quiet window of frames made after the pause (none
        /// expected: frames made before it may still complete by retransmission).
        public var madeAfterPause: [Int]
        public var audioWhilePaused: Int
        public var audioRatesWhilePaused: [Double]
        /// Opus frames decoded from a packet per second of sent audio in the quiet window, 1 s
        /// windows (`LabObserver.audioFramesDecodedRates`): 50 when nothing is lost.
        public var audioDecodedWhilePaused: [Double]
        /// Frames decoded from the pause's event on: the tail of what was under way (the frame
        /// being sent, what the pacer and the tbf's queue held).
        public var framesAfterEvent: Int
        /// Seconds from the event to the last frame decoded before the link's return.
        public var tailSeconds: Double
        /// Seconds from the link's return to the `layer_switched` that left none, and its layer;
        /// to the first frame decoded.
        public var resumed: Double
        public var resumedOn: String
        public var firstFrame: Double
        /// What the remote track said: paused while paused, not after.
        public var trackStillPausedAfter: Bool
        public var switches: [LabObserver.Switch]
        public var queue: String

        public var audioRateWhilePaused: Double { Double(audioWhilePaused) / quietSeconds }

        public var description: String {
            """
            network lab, 150 kbit/s: paused (layer_switched none, previous \(pausedFrom ?? "-")) \(fmt(paused)) s after the limit
              after the event: \(framesAfterEvent) frames until the link's return, the last \(fmt(tailSeconds)) s after it
              while paused \(fmt(quietSeconds)) s: \(framesWhilePaused) frames, \(audioWhilePaused) audio packets (\(fmt(audioRateWhilePaused))/s, lowest 1 s window \(fmt(audioRatesWhilePaused.min() ?? 0))/s); audio decoded from a packet per second of sent audio: lowest \(fmt(audioDecodedWhilePaused.min() ?? 0)), mean \(fmt(audioDecodedWhilePaused.isEmpty ? 0 : audioDecodedWhilePaused.reduce(0, +) / Double(audioDecodedWhilePaused.count)))
              link back: resumed on \(resumedOn) \(fmt(resumed)) s after, first frame \(fmt(firstFrame)) s after
              switches: \(switches.map(\.description).joined(separator: ", "))
              tbf: \(queue)
            """
        }
    }

    public static func pause(_ call: LabCall) async throws -> Pause {
        let observer = call.observer
        try await call.waitForBigFrames()
        try await Task.sleep(for: .seconds(4))  // past the allocator's startup grace

        let limitedAt = observer.elapsed
        try call.limitDownlink(150_000)
        let paused = try await waitFor(timeout: 15, "video paused") {
            observer.firstSwitch(since: limitedAt, layer: LayerSwitchedInfo.pausedLayer)
        }
        // Every frame made from here on was made after the server paused the video.
        let pushedAtPause = call.framesPushed
        let track = try await waitFor(timeout: 5, "the remote video track") {
            call.subscriber.remoteTracks.compactMap { $0 as? RemoteVideoTrack }.first
        }
        try await eventually(timeout: 5, "the track says it is paused") { track.isPausedForBandwidth }
        try await Task.sleep(for: .seconds(1))
        let quietFrom = observer.elapsed
        try await Task.sleep(for: .seconds(6))
        let quietTo = observer.elapsed
        let queue = call.downlinkQueue

        let restoredAt = observer.elapsed
        try call.limitDownlink(nil)
        let resumed = try await waitFor(timeout: 20, "video resumed") {
            observer.switches.first { $0.time >= restoredAt && $0.previous == LayerSwitchedInfo.pausedLayer }
        }
        try await eventually(timeout: 10, "frames decoded again") { observer.frameCount(from: resumed.time, to: .infinity) >= 30 }
        let firstFrame = try await waitFor(timeout: 1, "a frame after the return") { observer.frames.first { $0.time >= restoredAt } }
        return Pause(paused: paused.time - limitedAt, pausedFrom: paused.previous, quietSeconds: quietTo - quietFrom,
                     framesWhilePaused: observer.frameCount(from: quietFrom, to: quietTo),
                     madeAfterPause: observer.numbers.filter { $0.time >= quietFrom && $0.time <= quietTo && $0.number >= pushedAtPause }.map(\.number),
                     audioWhilePaused: observer.audioPackets(from: quietFrom, to: quietTo),
                     audioRatesWhilePaused: observer.audioRates(from: quietFrom, to: quietTo),
                     audioDecodedWhilePaused: observer.audioFramesDecodedRates(from: quietFrom, to: quietTo),
                     framesAfterEvent: observer.frameCount(from: paused.time, to: restoredAt),
                     tailSeconds: (observer.frames.last { $0.time >= paused.time && $0.time < restoredAt }?.time).map { $0 - paused.time } ?? 0,
                     resumed: resumed.time - restoredAt, resumedOn: resumed.layer, firstFrame: firstFrame.time - restoredAt,
                     trackStillPausedAfter: track.isPausedForBandwidth, switches: observer.switches, queue: queue)
    }
}
