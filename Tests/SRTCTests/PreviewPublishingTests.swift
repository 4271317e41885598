@testable import SRTCCore
import Testing

/// Seed 000's rule for the preview in a channel (`PreviewPublishing`): sent while joined, switched
/// on and previewing; what the engine sent and should not any more is unpublished; a track the
/// app published itself is left alone.
@Suite struct PreviewPublishingTests {
    final class Track {}
    enum Step: Equatable {
        case publish(ObjectIdentifier), unpublish(ObjectIdentifier)
    }

    static func steps(preview: Track?, joined: Bool, wanted: Bool = true, sent: Track?, previewPublished: Bool = false) -> [Step] {
        PreviewPublishing.steps(preview: preview, joined: joined, wanted: wanted, sent: sent, previewPublished: previewPublished).map {
            switch $0 {
            case .publish(let t): .publish(ObjectIdentifier(t))
            case .unpublish(let t): .unpublish(ObjectIdentifier(t))
            }
        }
    }

    @Test func aPreviewIsPublishedOnceJoinedAndSwitchedOn() {
        let camera = Track(), id = ObjectIdentifier(camera)
        // Before joining the camera only runs; on joining (or previewing once joined) it is sent.
        #expect(Self.steps(preview: camera, joined: false, sent: nil) == [])
        #expect(Self.steps(preview: camera, joined: true, sent: nil) == [.publish(id)])
        // Sent already: nothing more; the app published it itself: nothing either.
        #expect(Self.steps(preview: camera, joined: true, sent: camera) == [])
        #expect(Self.steps(preview: camera, joined: true, sent: nil, previewPublished: true) == [])
        // The channel's switch off: not sent, and unpublished if it was.
        #expect(Self.steps(preview: camera, joined: true, wanted: false, sent: nil) == [])
        #expect(Self.steps(preview: camera, joined: true, wanted: false, sent: camera) == [.unpublish(id)])
    }

    @Test func whatThePreviewNoLongerShowsIsUnpublished() {
        let old = Track(), new = Track()
        // The preview stopped.
        #expect(Self.steps(preview: nil, joined: true, sent: old) == [.unpublish(ObjectIdentifier(old))])
        // It moved to another track: the old one goes before the new one comes.
        #expect(Self.steps(preview: new, joined: true, sent: old) == [.unpublish(ObjectIdentifier(old)), .publish(ObjectIdentifier(new))])
        // Nothing runs and nothing was sent.
        #expect(Self.steps(preview: nil, joined: true, sent: nil) == [])
    }
}
