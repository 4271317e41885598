@testable import EgressServer
import EgressProtocol
import Foundation
import Testing

/// `ingress/create`'s `transcode` (docs/ingress.md, "H.264 passthrough, and what is transcoded"):
/// absent passes Baseline and Main through and transcodes High; an object (or `true`) always
/// transcodes; `false` passes High through too.
@Suite struct IngressRequestsTests {
    static func request(_ json: String) throws -> EgressSupervisor.IngressRequest {
        let body = try JSONDecoder().decode(IngressRequests.Create.self, from: Data(json.utf8))
        return try IngressRequests.request(body)
    }

    /// (the `transcode` member as sent, transcode, passesHigh, simulcast, bitrate)
    @Test(arguments: [
        ("", false, false, false, 2_000_000),
        (#", "transcode": null"#, false, false, false, 2_000_000),
        (#", "transcode": {}"#, true, false, false, 2_000_000),
        (#", "transcode": true"#, true, false, false, 2_000_000),
        (#", "transcode": {"simulcast": true, "video_bitrate": 500000}"#, true, false, true, 500_000),
        (#", "transcode": false"#, false, true, false, 2_000_000),
    ] as [(String, Bool, Bool, Bool, Int)])
    func transcodeChoosesWhatPassesThrough(member: String, transcode: Bool, passesHigh: Bool, simulcast: Bool, bitrate: Int) throws {
        let r = try Self.request(#"{"channel": "show", "uid": "obs", "kind": "rtmp""# + member + "}")
        #expect(r.transcode == transcode && r.passesHigh == passesHigh && r.simulcast == simulcast && r.videoBitrate == bitrate, "\(member)")
    }

    @Test func anotherTranscodeValueIsRefused() {
        #expect(throws: (any Error).self) { try Self.request(#"{"channel": "show", "uid": "obs", "kind": "rtmp", "transcode": "yes"}"#) }
    }

    /// Settings stored before `passesHigh` existed transcode High (the new default).
    @Test func storedSettingsWithoutPassesHighTranscodeHigh() throws {
        let stored = #"{"kind": "rtmp", "uid": "obs", "input": "rtmp://0.0.0.0:1/live/K", "streamKey": "K", "videoBitrate": 2000000, "simulcast": false, "transcode": false}"#
        let settings = try JSONDecoder().decode(IngressSettings.self, from: Data(stored.utf8))
        #expect(!settings.transcode && !settings.passesHigh)
        let again = try JSONDecoder().decode(IngressSettings.self, from: JSONEncoder().encode(IngressSettings(
            kind: .rtmp, uid: "obs", input: "i", streamKey: nil, passesHigh: true)))
        #expect(again.passesHigh)
    }
}
