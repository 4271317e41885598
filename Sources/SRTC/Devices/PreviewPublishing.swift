/// When a channel sends the engine's local preview (seed 000, `startLocalPreview:view:`): "before
/// joining a channel, the SDK only turns on the camera and waits until a channel instance joins
/// before it starts publishing; after joining, it starts publishing automatically", and each
/// channel's own switch (`publishLocalVideo:`) decides whether it sends it. Platform-neutral and
/// pure, so the rule is table-tested; `Channel.syncPreview()` carries the steps out.
///
/// A channel sends the preview when it is joined, its switch is on and a preview runs. What the
/// engine published and no longer should (the switch went off, the preview stopped or moved to
/// another track, the channel left) is unpublished; a preview track the app published itself is
/// left alone.
enum PreviewPublishing {
    enum Step<Track: AnyObject> {
        case unpublish(Track)
        case publish(Track)
    }

    /// - Parameters:
    ///   - preview: the previewed track, if a preview runs.
    ///   - joined: the channel is joined (and connected).
    ///   - wanted: the channel's `publishLocalVideo` switch.
    ///   - sent: the track the engine published in this channel for the preview, if any.
    ///   - previewPublished: `preview` is published in this channel already (by the app).
    /// - Returns: what to do, in order.
    static func steps<Track: AnyObject>(preview: Track?, joined: Bool, wanted: Bool, sent: Track?,
                                        previewPublished: Bool) -> [Step<Track>] {
        let keep = joined && wanted ? preview : nil
        var steps: [Step<Track>] = []
        if let sent, sent !== keep { steps.append(.unpublish(sent)) }
        if let keep, keep !== sent, !previewPublished { steps.append(.publish(keep)) }
        return steps
    }
}
