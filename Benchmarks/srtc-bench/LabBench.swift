import Foundation
import SRTCLab
import SRTCLoad
import SRTCTestSupport

/// `srtc-bench lab`: the network lab's scenarios (issue 26; docs/network.md, "The lab") on the
/// release build, as a table: how fast the subscriber's layer follows the link down and back up,
/// the worst freeze, audio kept, audio concealed under loss with and without RED. The same
/// `LabScenario`s the lab tests assert on; here only printed. Then the scenarios that apply to
/// Janus VideoRoom too, ours beside Janus with the same clients (`LabServerComparison`). Needs
/// root (network namespaces, `tc`); about six minutes. `SRTC_LAB_ONLY=sdk` runs the first table
/// alone, `SRTC_LAB_ONLY=servers` the second.
func runLabBenchmarks() {
    let only = ProcessInfo.processInfo.environment["SRTC_LAB_ONLY"]
    print("== network lab (the srtc-server beside srtc-bench in a namespace of its own, SDK publisher and subscriber through a veth pair; seconds after the link changed)")
    guard NetworkLab.isAvailable else {
        print("  skipped: needs root, ip and tc (network namespaces)")
        return
    }
    if only != "servers" { runSDKLabRows() }
    if only != "sdk" { runServerLabRows() }
}

/// The lab's scenarios on our server with the Swift SDK's clients.
private func runSDKLabRows() {
    do {
        let adaptation = try blocking { try await ending(try await LabCall(), { try await LabScenario.adaptation($0, unlimitedSeconds: 60) }) }
        let step = try blocking { try await ending(try await LabCall(), { try await LabScenario.stepDown($0) }) }
        let pause = try blocking { try await ending(try await LabCall(), { try await LabScenario.pause($0) }) }
        let loss = NetworkLab.Loss.random(perMille: 200)
        let lossy = try [true, false].map { red in
            try blocking {
                try await ending(try await LabCall(subscriberRedundantAudio: red, subscriberAudioNACK: false), {
                    try await LabScenario.audioLoss($0, loss: loss, seconds: 15, red: red, nack: false)
                })
            }
        }
        let row = { (name: String, value: String) in print("  " + name.padding(toLength: 66, withPad: " ", startingAt: 0) + value) }
        row("unlimited 60 s: bandwidth switches", "\(adaptation.unlimitedSwitches.count) (\(adaptation.bigFrames) frames of 640×360)")
        row("unlimited → 250 kbit/s: down to camera_small", "\(fmt(adaptation.down)) s")
        row("250 kbit/s → unlimited: up to camera_big (first frame)", "\(fmt(adaptation.up)) s (\(fmt(adaptation.firstBigFrame)) s)")
        row("delay ms: unlimited / worst at 250k / last 3 s (lowest)", "\(fmt(adaptation.delayUnlimited)) / \(fmt(adaptation.delayLimitedWorst)) / \(fmt(adaptation.delayLimitedEnd)) (\(fmt(adaptation.delayLimitedEndLowest)))")
        row("2 Mbit/s: bandwidth switches", "\(step.wideSwitches.count)")
        row("2 Mbit/s → 300 kbit/s: down (first 160×90 frame)", "\(fmt(step.down)) s (\(fmt(step.firstSmallFrame)) s)")
        row("300 kbit/s → 2 Mbit/s: up (first 640×360 frame)", "\(fmt(step.up)) s (\(fmt(step.firstBigFrame)) s)")
        row("delay ms: 2 Mbit/s / worst at 300k / last 3 s (lowest)", "\(fmt(step.delayWide)) / \(fmt(step.delayNarrowWorst)) / \(fmt(step.delayNarrowEnd)) (\(fmt(step.delayNarrowEndLowest)))")
        row("step: worst freeze (on the small layer)", "\(fmt(step.worstGap)) s (\(fmt(step.gapOnSmallLayer)) s)")
        row("step: audio arrivals, lowest 1 s window / windows under 48", "\(fmt(step.audioRates.min() ?? 0)) packets/s / \(step.audioRates.filter { $0 < LabScenario.minimumAudioRate }.count) of \(step.audioRates.count)")
        row("step: audio decoded per second of sent audio, lowest / under 48", "\(fmt(step.audioFramesDecoded.min() ?? 0)) / \(step.audioFramesDecoded.filter { $0 < LabScenario.minimumAudioRate }.count) of \(step.audioFramesDecoded.count) (worst delay \(fmt(step.audioWorstDelay)) ms)")
        row("150 kbit/s: video paused", "\(fmt(pause.paused)) s (\(pause.framesWhilePaused) frames while paused)")
        row("150 kbit/s: audio while paused", "\(fmt(pause.audioRateWhilePaused)) packets/s")
        row("150 kbit/s → unlimited: video resumed (first frame)", "\(fmt(pause.resumed)) s on \(pause.resumedOn) (\(fmt(pause.firstFrame)) s)")
        for run in lossy {
            row("20 % loss, \(run.red ? "RED" : "no RED"), no NACK: audio concealed", "\(fmt(run.concealment * 100)) % (\(run.recoveredByRED) rebuilt by RED, \(run.lost) datagrams dropped)")
        }
        print("  Janus: no adaptation row: its VideoRoom does not adapt a subscriber's layer to its bandwidth (the subscriber or the app picks the substream)")
    } catch {
        print("  failed: \(error)")
    }
}

/// Ours beside Janus on the scenarios that apply to both (`LabServerComparison`).
private func runServerLabRows() {
    print("== network lab, ours beside Janus VideoRoom (each server in a namespace of its own; the load generator's publisher, simulcast VP8 640×360 + 160×90 and Opus, and subscriber asking for camera_big, the same clients for both; the subscriber's path through the relay, 20 ms each way; \(Int(LabServerComparison.phaseSeconds)) s per phase)")
    do {
        let ours = try blocking { try await LabServerComparison.measure(.ours) }
        var janus: LabServerComparison.Figures?
        var note = "skipped: janus is not installed (scripts/install-deps)"
        if JanusServer.isInstalled {
            do {
                janus = try blocking { try await LabServerComparison.measure(.janus) }
            } catch {
                note = "failed: \(error)"
            }
        }
        LabServerComparison.printTable(ours: ours, janus: janus, janusNote: note)
    } catch {
        print("  failed: \(error)")
    }
}
