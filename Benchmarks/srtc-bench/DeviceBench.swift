// Linux device latency: a tone burst played into a PulseAudio null sink is captured by one
// engine's microphone (the sink's monitor), sent through the server on loopback, and played by a
// second engine on another null sink. PulseAudio's own recorder (`parec`) timestamps each burst's
// onset on both monitors; the difference is the capture-to-remote-playback latency. Printed,
// never asserted.
import Foundation
import SRTC
import SRTCTestSupport
import Synchronization

/// Runs the device benchmarks and prints their figures.
func runDeviceBenchmarks() {
    print("== devices (PulseAudio microphone to a remote participant's speaker, through the server on loopback)")
    let done = DispatchSemaphore(value: 0)
    Task {
        do { try await DeviceLatencyBench().run() } catch { print("devices benchmark failed: \(error)") }
        done.signal()
    }
    done.wait()
}

private struct DeviceLatencyBench {
    /// Subscribes to every remote audio track it hears of.
    final class Subscriber: ChannelDelegate, @unchecked Sendable {
        func channel(_ channel: Channel, user: UserInfo, didAddTrack track: TrackInfo) {
            guard track.kind == .audio, let remote = channel.remoteTrack(trackId: track.id) else { return }
            Task { try? await channel.subscribe(remote) }
        }
    }

    static let bursts = 8
    /// 5 ms analysis blocks at 48 kHz.
    static let block = 240

    func run() async throws {
        let pulse = try await PulseAudioServer.start(sinks: ["mic", "speaker"])
        let server = try TestServer()
        func engine() -> SRTCEngine {
            SRTCEngine(independent: .init(delegateQueue: DispatchQueue(label: "bench-devices"), logLevel: .off,
                                            mediaBindAddress: "127.0.0.1", audioServer: pulse.address))
        }
        let sender = engine(), receiver = engine()
        let sending = try sender.createChannel(), receiving = try receiver.createChannel()
        let subscriber = Subscriber()
        receiving.delegates.add(delegate: subscriber)
        try await sending.join(url: server.httpBase, token: server.token(uid: "talker", channel: "latency"))
        try await receiving.join(url: server.httpBase, token: server.token(uid: "listener", channel: "latency"))
        let microphone = sender.createLocalMicrophoneTrack()
        try await microphone.startCapture(deviceId: "mic.monitor")
        try await sending.publishLocalTrack(microphone)
        try receiver.startAudioPlayback(deviceId: "speaker")
        let captured = try pulse.record("mic.monitor"), played = try pulse.record("speaker.monitor")
        try await Task.sleep(for: .seconds(1.5))   // subscribed and playing silence

        for _ in 0..<Self.bursts {
            let tone = try pulse.playTone(into: "mic", frequency: 440)
            try await Task.sleep(for: .milliseconds(200))
            await tone.stop()
            try await Task.sleep(for: .milliseconds(800))
        }
        try await Task.sleep(for: .milliseconds(500))

        let starts = onsets(captured.all), heard = onsets(played.all)
        var latencies: [Double] = []
        for start in starts {
            guard let spoken = captured.uptime(ofSample: start) else { continue }
            // The first onset on the speaker after this one, within a second.
            let replies = heard.compactMap { played.uptime(ofSample: $0) }.filter { $0 > spoken && $0 - spoken < 1_000_000_000 }
            if let reply = replies.first { latencies.append(Double(reply - spoken) / 1e6) }
        }
        latencies.sort()
        if latencies.isEmpty {
            print("  capture to remote playback: no burst came through (\(starts.count) captured, \(heard.count) played)")
        } else {
            print(String(format: "  capture to remote playback (PulseAudio source to sink, Opus, SFU on loopback): median %.0f ms, min %.0f ms, max %.0f ms over %d bursts (±10 ms: parec's fragments)",
                         latencies[latencies.count / 2], latencies.first!, latencies.last!, latencies.count))
        }

        microphone.stopCapture()
        receiver.stopAudioPlayback()
        await captured.stop()
        await played.stop()
        await sender.destroy()
        await receiver.destroy()
        await server.stop()
        await pulse.stop()
    }

    /// Sample indices where sound starts after at least 300 ms of silence (5 ms blocks: loud
    /// above an RMS of 0.05, silent below 0.01).
    func onsets(_ samples: [Float]) -> [Int] {
        var result: [Int] = [], quiet = 0
        for start in stride(from: 0, to: samples.count - Self.block, by: Self.block) {
            var sum: Float = 0
            for sample in samples[start..<(start + Self.block)] { sum += sample * sample }
            let rms = (sum / Float(Self.block)).squareRoot()
            if rms > 0.05 {
                if quiet * Self.block >= 14_400 { result.append(start) }
                quiet = 0
            } else if rms < 0.01 {
                quiet += 1
            }
        }
        return result
    }
}
