#if os(Linux)
import Foundation
import RTCMedia
import SRTC
import SRTCTestSupport
import TestWait
import Synchronization
import Testing

/// Records the device events a test waits for.
final class DeviceEventRecorder: DeviceChangeDelegate, @unchecked Sendable {
    private let lines = Mutex<[String]>([])
    var events: [String] { lines.withLock { $0 } }

    func engine(_ engine: SRTCEngine, didAddDevice device: MediaDevice) { lines.withLock { $0.append("+ \(device.kind.rawValue) \(device.deviceId)") } }
    func engine(_ engine: SRTCEngine, didRemoveDevice device: MediaDevice) { lines.withLock { $0.append("- \(device.kind.rawValue) \(device.deviceId)") } }
}

/// Linux audio devices through a real PulseAudio daemon each test starts (null sinks: a "mic"
/// whose monitor is the microphone, a "speaker" whose monitor shows what was played). The tone
/// is played and recorded by PulseAudio's own tools (`pacat`, `parec`), not by the SDK.
@Suite(.serialized) struct DeviceAudioTests {
    func engine(_ pulse: PulseAudioServer?) -> SRTCEngine {
        SRTCEngine(independent: .init(delegateQueue: DispatchQueue(label: "device-audio"), logLevel: .off,
                                        mediaBindAddress: "127.0.0.1", audioServer: pulse?.address ?? "unix:/nonexistent/native"))
    }

    @Test func microphoneToneReachesTheOtherParticipantAndIsPlayedOnItsSpeaker() async throws {
        let pulse = try await PulseAudioServer.start(sinks: ["mic", "speaker"])
        let server = try SDKTestServer()
        let a = engine(pulse), b = engine(pulse)
        let channelA = try a.createChannel(), channelB = try b.createChannel()
        let subscriber = SDKAutoSubscriber()
        channelB.delegates.add(delegate: subscriber)
        try await channelA.join(url: server.url, token: server.token(uid: "a", channel: "audio"))
        try await channelB.join(url: server.url, token: server.token(uid: "b", channel: "audio"))

        // A's microphone is the monitor of the "mic" sink, into which pacat plays 440 Hz.
        let tone = try pulse.playTone(into: "mic", frequency: 440)
        let microphone = a.createLocalMicrophoneTrack()
        try await microphone.startCapture(deviceId: "mic.monitor")
        #expect(microphone.deviceId == "mic.monitor")
        try await channelA.publishLocalTrack(microphone)
        // B plays every remote track on the "speaker" sink; parec records its monitor.
        try b.startAudioPlayback(deviceId: "speaker")
        #expect(b.isAudioPlaybackRunning)
        let speaker = try pulse.record("speaker.monitor")

        // A second of 440 Hz on each: on a loaded machine a capture glitch can spoil one second's
        // estimate, so the check is that one arrives within the deadline (the last ones are in the message).
        var heard: (received: Double?, played: Double?) = (nil, nil)
        try await eventually(timeout: 20, "440 Hz on B's renderer and speaker (last: \(String(describing: heard)))") {
            heard = (subscriber.collector.samples.count > 48_000 ? subscriber.collector.toneFrequency : nil, speaker.toneFrequency(lastSeconds: 1))
            return heard.received.map { abs($0 - 440) < 10 } == true && heard.played.map { abs($0 - 440) < 10 } == true
        }

        // The speaker's mute switch: silence on the sink, while B still receives.
        b.remoteAudioMuted = true
        let mutedFrom = speaker.count
        try await eventually(timeout: 5, "half a second recorded while muted") { speaker.count > mutedFrom + 36_000 }
        let afterMute = Array(speaker.all[(mutedFrom + 12_000)...])
        #expect(FrequencyEstimator.rms(afterMute) < 0.001, "muted level \(FrequencyEstimator.rms(afterMute))")
        let stillReceived = subscriber.collector.toneFrequency
        #expect(stillReceived.map { abs($0 - 440) < 10 } == true, "B decoded \(String(describing: stillReceived)) Hz while muted")

        microphone.stopCapture()
        b.stopAudioPlayback()
        #expect(!b.isAudioPlaybackRunning)
        await tone.stop()
        await speaker.stop()
        await channelA.leave()
        await channelB.leave()
        await server.stop()
        await pulse.stop()
    }

    @Test func sourcesAndSinksAreListedAndTheirComingAndGoingReported() async throws {
        let pulse = try await PulseAudioServer.start(sinks: ["speaker"])
        let engine = engine(pulse)
        let outputs = engine.getDevices(kind: .audioOutput)
        #expect(outputs.map(\.deviceId) == ["speaker"])
        #expect(outputs.first?.isDefault == true)
        #expect(engine.getDevices(kind: .audioInput).map(\.deviceId) == ["speaker.monitor"])

        let recorder = DeviceEventRecorder()
        engine.deviceDelegates.add(delegate: recorder)
        let module = try await pulse.pactl(["load-module", "module-null-sink", "sink_name=headset"])
            .trimmingCharacters(in: .whitespacesAndNewlines)
        try await eventually(timeout: 10, "the headset added") {
            Set(recorder.events).isSuperset(of: ["+ audioOutput headset", "+ audioInput headset.monitor"])
        }
        #expect(engine.getDevices(kind: .audioOutput).map(\.deviceId).sorted() == ["headset", "speaker"])
        try await pulse.pactl(["unload-module", module])
        try await eventually(timeout: 10, "the headset removed") {
            Set(recorder.events).isSuperset(of: ["- audioOutput headset", "- audioInput headset.monitor"])
        }
        #expect(recorder.events.count == 4, "events: \(recorder.events)")
        await engine.destroy()
        await pulse.stop()
    }

    @Test func missingDevicesAndServersGiveTheirDocumentedErrors() async throws {
        let pulse = try await PulseAudioServer.start(sinks: ["speaker"])
        let engine = engine(pulse)
        #expect(throws: SRTCError.notFound("PulseAudio device no-such-sink")) { try engine.startAudioPlayback(deviceId: "no-such-sink") }
        #expect(!engine.isAudioPlaybackRunning)
        let microphone = engine.createLocalMicrophoneTrack()
        await #expect(throws: SRTCError.notFound("PulseAudio device no-such-source")) {
            try await microphone.startCapture(deviceId: "no-such-source")
        }
        await pulse.stop()

        // No sound server at all: empty lists, no error; opening fails with a system error.
        let alone = self.engine(nil)
        #expect(alone.getDevices(kind: .audioInput).isEmpty && alone.getDevices(kind: .audioOutput).isEmpty)
        do {
            try alone.startAudioPlayback()
            Issue.record("playback started without a server")
        } catch {
            #expect(error.code == 1011)
        }
    }
}
#endif
