import Foundation
import SRTC
import Synchronization
import TestWait

/// A `ChannelDelegate` that records every event as a short line and the payloads, so tests can
/// wait for one and check the order.
final class SDKEventRecorder: ChannelDelegate, @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible { let description: String }

    private let lines = Mutex<[String]>([])
    private let messagesStore = Mutex<[CustomMessage]>([])
    private let statuses = Mutex<[ReceiveStreamStatus]>([])
    private let addedTracks = Mutex<[TrackInfo]>([])

    var events: [String] { lines.withLock { $0 } }
    var messages: [CustomMessage] { messagesStore.withLock { $0 } }
    var receiveStatuses: [ReceiveStreamStatus] { statuses.withLock { $0 } }
    var tracksAdded: [TrackInfo] { addedTracks.withLock { $0 } }

    private func record(_ line: String) { lines.withLock { $0.append(line) } }

    func channel(_ channel: Channel, didJoinSucceed info: ChannelInfo) { record("joined \(info.channel)") }
    func channelIsReconnecting(_ channel: Channel) { record("reconnecting") }
    func channel(_ channel: Channel, didReconnect info: ChannelInfo) { record("reconnected") }
    func channel(_ channel: Channel, didDisconnect reason: DisconnectReason, error: Error?) { record("disconnected \(reason.rawValue)") }
    func channel(_ channel: Channel, userDidJoin user: UserInfo) { record("user+ \(user.uid)") }
    func channel(_ channel: Channel, userDidUpdate user: UserInfo) { record("user~ \(user.uid) \(user.nickname ?? "-")") }
    func channel(_ channel: Channel, meDidUpdate user: UserInfo) { record("me~ \(user.nickname ?? "-")") }
    func channel(_ channel: Channel, userDidLeave uid: String, reason: DisconnectReason) { record("user- \(uid) \(reason.rawValue)") }
    func channel(_ channel: Channel, user: UserInfo, didAddTrack track: TrackInfo) {
        addedTracks.withLock { $0.append(track) }
        record("track+ \(user.uid) \(track.desc)")
    }
    func channel(_ channel: Channel, user: UserInfo, didUpdateTrack track: TrackInfo) { record("track~ \(user.uid) \(track.desc) muted=\(track.muted)") }
    func channel(_ channel: Channel, user: UserInfo, didRemoveTrack track: TrackInfo) { record("track- \(user.uid) \(track.desc)") }
    func channel(_ channel: Channel, didChangeReceiveStreamStatus status: ReceiveStreamStatus) {
        statuses.withLock { $0.append(status) }
        record("status \(status.desc) timedOut=\(status.timedOut)")
    }
    func channel(_ channel: Channel, didReceiveCustomMessage message: CustomMessage) {
        messagesStore.withLock { $0.append(message) }
        record("message \(message.from ?? "backend"): \(message.data)")
    }
    func channel(_ channel: Channel, didUpdateInfo info: ChannelInfo) { record("info users=\(info.userCount)") }
    func channel(_ channel: Channel, didSwitchLayer info: LayerSwitchedInfo) { record("layer \(info.layer)") }
    func channel(_ channel: Channel, didChangeActiveSpeakers snapshot: ActiveSpeakersSnapshot) {
        record("speakers \(snapshot.speakers.map(\.uid).joined(separator: ","))")
    }
    func channel(_ channel: Channel, didReceiveQualityReport report: QualityReport) { record("quality report \(report.uid)") }
    func channel(_ channel: Channel, didChangeConnectionQuality change: ConnectionQualityChange) {
        record("quality \(change.uid) \(change.previous.rawValue)->\(change.quality.rawValue)")
    }

    /// Waits until an event line equal to `line` has been recorded.
    func wait(for line: String) async throws {
        try await wait("'\(line)'") { $0.contains(line) }
    }

    /// Waits until `condition` holds on the recorded lines.
    func wait(_ what: String = "condition", _ condition: ([String]) -> Bool) async throws {
        try await eventually("\(what); events: \(events)") { condition(events) }
    }
}
