/// Events of one channel. Register with `channel.delegates.add(delegate: self)`.
///
/// Every method has a default empty implementation: implement only what you need. Events are
/// delivered on the engine's delegate queue (`.main` unless the engine was created with another
/// serial queue), in the order they happened. Observers are held weakly.
///
/// When a join succeeds, `channel(_:didJoinSucceed:)` comes first, then `userDidJoin` and
/// `didAddTrack` for every user and track already in the channel, so `didAddTrack` is the one
/// place to decide what to subscribe.
public protocol ChannelDelegate: AnyObject {
    // MARK: Connection

    /// Joined the channel successfully for the first time.
    func channel(_ channel: Channel, didJoinSucceed info: ChannelInfo)
    /// The signaling connection was lost; the SDK is reconnecting.
    func channelIsReconnecting(_ channel: Channel)
    /// Reconnected: the session was resumed.
    func channel(_ channel: Channel, didReconnect info: ChannelInfo)
    /// The connection is fully lost or you left the channel (`reason == .clientLeave`).
    func channel(_ channel: Channel, didDisconnect reason: DisconnectReason, error: Error?)

    // MARK: Users

    /// A remote user joined.
    func channel(_ channel: Channel, userDidJoin user: UserInfo)
    /// A remote user's profile was updated.
    func channel(_ channel: Channel, userDidUpdate user: UserInfo)
    /// Your own info was updated.
    func channel(_ channel: Channel, meDidUpdate user: UserInfo)
    /// A remote user left.
    func channel(_ channel: Channel, userDidLeave uid: String, reason: DisconnectReason)

    // MARK: Tracks

    /// A remote user added a track.
    func channel(_ channel: Channel, user: UserInfo, didAddTrack track: TrackInfo)
    /// A remote track's info was updated (muted, layers).
    func channel(_ channel: Channel, user: UserInfo, didUpdateTrack track: TrackInfo)
    /// A remote track was removed.
    func channel(_ channel: Channel, user: UserInfo, didRemoveTrack track: TrackInfo)
    /// A subscribed remote video timed out on receiving, or recovered (per track).
    func channel(_ channel: Channel, didChangeReceiveStreamStatus status: ReceiveStreamStatus)

    // MARK: Messages and channel

    /// A custom message was received.
    func channel(_ channel: Channel, didReceiveCustomMessage message: CustomMessage)
    /// Channel info was updated (user count, metadata).
    func channel(_ channel: Channel, didUpdateInfo info: ChannelInfo)
    /// User data arrived on the data channel (`Channel.publishData`, or the backend).
    func channel(_ channel: Channel, didReceiveData message: DataMessage)
    /// An end-to-end encrypted data message arrived that this client cannot decrypt (no key, no
    /// E2EE configured, or another key): its payload is not delivered (docs/e2ee.md).
    func channel(_ channel: Channel, didFailToDecryptData failure: DataDecryptionFailure)

    // MARK: Call quality

    /// Every quality report the server sends (raw values, every report cycle).
    func channel(_ channel: Channel, didReceiveQualityReport report: QualityReport)
    /// A quality level changed (state change, with hysteresis).
    func channel(_ channel: Channel, didChangeConnectionQuality change: ConnectionQualityChange)
    /// The active speakers changed: the full list, loudest first; empty when nobody speaks.
    func channel(_ channel: Channel, didChangeActiveSpeakers snapshot: ActiveSpeakersSnapshot)
    /// A simulcast layer switch of one of your subscriptions completed.
    func channel(_ channel: Channel, didSwitchLayer info: LayerSwitchedInfo)

    // MARK: Captions

    /// A live caption while the channel's captions run (`/server/v1/channel/captions/start`):
    /// a speaker's partials, each replacing the one before, then their turn's final, in order.
    func channel(_ channel: Channel, didReceiveCaption caption: Caption)
    /// With end-to-end encryption on (`Configuration.e2ee`): what this client can do with `uid`'s
    /// media changed (`ok`, `missingKey`, `decryptionFailed`; docs/e2ee.md). Told on each change.
    func channel(_ channel: Channel, e2eeStateChanged uid: String, state: E2EEState)
}

extension ChannelDelegate {
    public func channel(_ channel: Channel, didJoinSucceed info: ChannelInfo) {}
    public func channelIsReconnecting(_ channel: Channel) {}
    public func channel(_ channel: Channel, didReconnect info: ChannelInfo) {}
    public func channel(_ channel: Channel, didDisconnect reason: DisconnectReason, error: Error?) {}
    public func channel(_ channel: Channel, userDidJoin user: UserInfo) {}
    public func channel(_ channel: Channel, userDidUpdate user: UserInfo) {}
    public func channel(_ channel: Channel, meDidUpdate user: UserInfo) {}
    public func channel(_ channel: Channel, userDidLeave uid: String, reason: DisconnectReason) {}
    public func channel(_ channel: Channel, user: UserInfo, didAddTrack track: TrackInfo) {}
    public func channel(_ channel: Channel, user: UserInfo, didUpdateTrack track: TrackInfo) {}
    public func channel(_ channel: Channel, user: UserInfo, didRemoveTrack track: TrackInfo) {}
    public func channel(_ channel: Channel, didChangeReceiveStreamStatus status: ReceiveStreamStatus) {}
    public func channel(_ channel: Channel, didReceiveCustomMessage message: CustomMessage) {}
    public func channel(_ channel: Channel, didUpdateInfo info: ChannelInfo) {}
    public func channel(_ channel: Channel, didReceiveData message: DataMessage) {}
    public func channel(_ channel: Channel, didFailToDecryptData failure: DataDecryptionFailure) {}
    public func channel(_ channel: Channel, didReceiveQualityReport report: QualityReport) {}
    public func channel(_ channel: Channel, didChangeConnectionQuality change: ConnectionQualityChange) {}
    public func channel(_ channel: Channel, didChangeActiveSpeakers snapshot: ActiveSpeakersSnapshot) {}
    public func channel(_ channel: Channel, didSwitchLayer info: LayerSwitchedInfo) {}
    public func channel(_ channel: Channel, didReceiveCaption caption: Caption) {}
    public func channel(_ channel: Channel, e2eeStateChanged uid: String, state: E2EEState) {}
}
