import Foundation
import SRTCCore
import SRTCProtocol

extension LabScenario {
    /// 2 Mbit/s → 300 kbit/s → 2 Mbit/s toward the subscriber (issue 26, "Step down").
    public struct StepDown: Sendable, CustomStringConvertible {
        /// Switches for bandwidth in the first 2 Mbit/s phase (none expected).
        public var wideSwitches: [LabObserver.Switch]
        /// Seconds from the drop to `layer_switched` camera_small, and to its first 160×90 frame.
        public var down: Double
        public var firstSmallFrame: Double
        /// Seconds from the return to `layer_switched` camera_big, and to its first 640×360 frame.
        public var up: Double
        public var firstBigFrame: Double
        /// The longest time without a decoded frame over the call, and on the small layer.
        public var worstGap: Double
        public var gapOnSmallLayer: Double
        /// Audio packets *arriving* a second in 1 s windows over the call; away from the two link
        /// changes (3 s after each); in the 3 s after the drop. A packet held up in the link's
        /// queue moves out of its window: these fall with delay as well as with loss.
        public var audioRates: [Double]
        public var steadyAudioRates: [Double]
        public var transitionAudioRates: [Double]
        /// What the listener gets: Opus frames decoded from a packet (one that arrived, or one a
        /// NACK or RED block brought back in time; not a tick concealed) per second of the
        /// sender's audio, 1 s windows sliding by 250 ms over the call
        /// (`LabObserver.audioFramesDecodedRates`). 50 when nothing is lost; delay does not lower it.
        public var audioFramesDecoded: [Double]
        /// The most an audio frame came later than the least delayed one, ms (the queue the
        /// listener's jitter buffer had to absorb), over the call and in the 3 s after the drop.
        public var audioWorstDelay: Double
        public var audioWorstDelayAtDrop: Double
        public var switches: [LabObserver.Switch]
        /// Video delay, push to decode, ms (`LabScenario.Adaptation`'s): median at 2 Mbit/s; the
        /// worst at 300 kbit/s; the median and the lowest over the 300 kbit/s phase's last 3 s.
        public var delayWide: Double
        public var delayNarrowWorst: Double
        public var delayNarrowEnd: Double
        public var delayNarrowEndLowest: Double

        public var description: String {
            let mean = audioRates.isEmpty ? 0 : audioRates.reduce(0, +) / Double(audioRates.count)
            let short = audioRates.filter { $0 < LabScenario.minimumAudioRate }.count
            let undecoded = audioFramesDecoded.filter { $0 < LabScenario.minimumAudioRate }.count
            return """
                network lab, 2 Mbit/s → 300 kbit/s → 2 Mbit/s: \(wideSwitches.count) bandwidth switches at 2 Mbit/s
                  300 kbit/s: layer_switched camera_small \(fmt(down)) s after, first 160×90 frame \(fmt(firstSmallFrame)) s after
                  2 Mbit/s again: layer_switched camera_big \(fmt(up)) s after, first 640×360 frame \(fmt(firstBigFrame)) s after
                  worst video gap: \(fmt(worstGap)) s over the call, \(fmt(gapOnSmallLayer)) s on the small layer
                  audio decoded from a packet per second of sent audio: lowest \(fmt(audioFramesDecoded.min() ?? 0)), \(undecoded) of \(audioFramesDecoded.count) windows under \(Int(LabScenario.minimumAudioRate)); worst delay \(fmt(audioWorstDelay)) ms (\(fmt(audioWorstDelayAtDrop)) ms in the 3 s after the drop)
                  audio arrivals: lowest 1 s window \(fmt(audioRates.min() ?? 0)) packets/s (\(fmt(transitionAudioRates.min() ?? 0)) in the 3 s after the drop, \(fmt(steadyAudioRates.min() ?? 0)) elsewhere), mean \(fmt(mean))/s, \(short) of \(audioRates.count) windows under \(Int(LabScenario.minimumAudioRate))
                  video delay (push to decode): median \(fmt(delayWide)) ms at 2 Mbit/s, worst \(fmt(delayNarrowWorst)) ms at 300 kbit/s, median \(fmt(delayNarrowEnd)) ms and lowest \(fmt(delayNarrowEndLowest)) ms over its last 3 s
                  switches: \(switches.map(\.description).joined(separator: ", "))
                """
        }
    }

    public static func stepDown(_ call: LabCall) async throws -> StepDown {
        let observer = call.observer
        try call.limitDownlink(2_000_000)
        try await call.waitForBigFrames()
        let wideAt = observer.elapsed
        try await Task.sleep(for: .seconds(8))

        let narrowAt = observer.elapsed
        try call.limitDownlink(300_000)
        let (down, firstSmall) = try await observer.switched(since: narrowAt, to: TrackDescName.cameraSmall, width: 160, timeout: 10)
        try await Task.sleep(for: .seconds(max(0, 10 - (observer.elapsed - narrowAt))))

        let wideAgainAt = observer.elapsed
        let narrowDelays = call.videoDelays(from: narrowAt, to: wideAgainAt)
        let narrowEndDelays = call.videoDelays(from: wideAgainAt - 3, to: wideAgainAt)
        try call.limitDownlink(2_000_000)
        let (up, firstBig) = try await observer.switched(since: wideAgainAt, to: TrackDescName.cameraBig, width: 640, timeout: 25)
        try await Task.sleep(for: .seconds(3))
        let end = observer.elapsed

        let steady = observer.audioRates(from: wideAt, to: narrowAt) + observer.audioRates(from: narrowAt + 3, to: wideAgainAt)
            + observer.audioRates(from: wideAgainAt + 3, to: end)
        return StepDown(wideSwitches: observer.switches.filter { $0.time >= wideAt && $0.time < narrowAt && $0.cause == "bandwidth" },
                        down: down.time - narrowAt, firstSmallFrame: firstSmall - narrowAt,
                        up: up.time - wideAgainAt, firstBigFrame: firstBig - wideAgainAt,
                        worstGap: observer.worstVideoGap(from: wideAt, to: end),
                        gapOnSmallLayer: observer.worstVideoGap(from: firstSmall, to: wideAgainAt),
                        audioRates: observer.audioRates(from: wideAt, to: end), steadyAudioRates: steady,
                        transitionAudioRates: observer.audioRates(from: narrowAt, to: narrowAt + 3),
                        // Frames sent in the last moments may not be played yet: up to 0.5 s before the end.
                        audioFramesDecoded: observer.audioFramesDecodedRates(from: wideAt, to: end - 0.5),
                        audioWorstDelay: observer.audioDelays(from: wideAt, to: end - 0.5).max() ?? 0,
                        audioWorstDelayAtDrop: observer.audioDelays(from: narrowAt, to: narrowAt + 3).max() ?? 0,
                        switches: observer.switches,
                        delayWide: median(call.videoDelays(from: wideAt, to: narrowAt)), delayNarrowWorst: narrowDelays.max() ?? 0,
                        delayNarrowEnd: median(narrowEndDelays), delayNarrowEndLowest: narrowEndDelays.min() ?? 0)
    }
}
