import Testing
import RTCWire
import SFU
import SRTCProtocol
@testable import SRTCServer

/// `--video-codecs` (docs/protocol.md, "publish"): the server answers a publisher's video in the
/// first codec of its list that the offer has and refuses an offer with none of them; without a
/// list, the offer's own order decides.
struct VideoCodecPreferenceTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var list: String?
        var offer: ClientSDP.Section
        /// The answered codec's name and payload type (the offer's).
        var codec: String
        var payloadType: UInt8
        var testDescription: String { "\(list ?? "no list"), \(offer.testName) → \(codec)" }
    }

    static let cases: [Case] = [
        Case(list: nil, offer: .chromiumDefault(mid: "1"), codec: "VP8", payloadType: 96),
        Case(list: "vp9", offer: .chromiumDefault(mid: "1"), codec: "VP9", payloadType: 98),
        Case(list: "vp9,vp8", offer: .chromiumDefault(mid: "1"), codec: "VP9", payloadType: 98),
        Case(list: "av1,vp9,vp8,h264", offer: .chromiumDefault(mid: "1"), codec: "AV1", payloadType: 45),
        Case(list: "h264,vp8", offer: .chromiumDefault(mid: "1"), codec: "H264", payloadType: 102),
        // The list's order wins over the offer's: this offer puts VP9 first.
        Case(list: "vp8,vp9", offer: .vp9First(mid: "1"), codec: "VP8", payloadType: 96),
        // A listed codec the offer lacks is skipped.
        Case(list: "av1, VP9", offer: .vp9First(mid: "1"), codec: "VP9", payloadType: 98),
    ]

    static func negotiation(_ list: String?) throws -> ServerNegotiation {
        let preference = try list.map { try #require(VideoCodecPreference(parsing: $0)) } ?? .offerOrder
        return ServerNegotiationTests.negotiation(videoCodecs: preference)
    }

    @Test(arguments: cases)
    func thePublishersVideoIsAnsweredInTheFirstListedCodecItsOfferHas(_ c: Case) throws {
        var n = try Self.negotiation(c.list)
        let offer = ClientSDP.offer([.audio(mid: "0"), c.offer])
        let tracks = [PublishTrack(mid: "0", kind: .audio, desc: "mic"), PublishTrack(mid: "1", kind: .video, desc: "camera")]
        let plan = try n.answerPublish(offer: offer, tracks: tracks, trackIds: ["0": "TR_0", "1": "TR_1"], transportExists: false)
        let video = try #require(try SessionDescription(parsing: plan.sdp).media(mid: "1"))
        #expect(video.codecs.map(\.name) == [c.codec])
        #expect(video.formats == [String(c.payloadType)])
        let producer = try #require(plan.producers.first { $0.trackId == "TR_1" })
        #expect(producer.parameters.codecs.map(\.name) == [c.codec])
        #expect(producer.parameters.codecs.first?.payloadType == c.payloadType)
        // The list is about video: the audio section keeps RED and Opus.
        #expect(try SessionDescription(parsing: plan.sdp).media(mid: "0")?.codecs.map(\.name) == ["red", "opus"])
    }

    @Test func anOfferWithoutAListedCodecIsRefusedOnPublish() throws {
        var n = try Self.negotiation("av1")
        let offer = ClientSDP.offer([.vp9First(mid: "1")])
        #expect(throws: SignalError(.invalidParameter, "m-section 1 offers none of the video codecs the server takes from publishers: av1")) {
            try n.answerPublish(offer: offer, tracks: [PublishTrack(mid: "1", kind: .video, desc: "camera")], trackIds: ["1": "TR_1"],
                                transportExists: false)
        }
    }

    @Test func aSectionWithoutAListedCodecNoTrackAsksForIsRejected() throws {
        var n = try Self.negotiation("av1")
        let offer = ClientSDP.offer([.audio(mid: "0"), .video(mid: "1")])
        let plan = try n.answerPublish(offer: offer, tracks: [PublishTrack(mid: "0", kind: .audio, desc: "mic")], trackIds: ["0": "TR_0"],
                                       transportExists: false)
        let answer = try SessionDescription(parsing: plan.sdp)
        #expect(answer.media(mid: "1")?.isRejected == true)
        #expect(answer.bundleMids == ["0"])
    }

    @Test func theListIsReadFromTheFlagOrTheVariable() throws {
        #expect(try ServerConfig.load(arguments: [], environment: [:]).media.videoCodecs == .offerOrder)
        #expect(try ServerConfig.load(arguments: ["--video-codecs", "av1,vp9,vp8,h264"], environment: [:]).media.videoCodecs.names
            == ["av1", "vp9", "vp8", "h264"])
        #expect(try ServerConfig.load(arguments: [], environment: ["SRTC_VIDEO_CODECS": "VP9, vp8"]).media.videoCodecs.names == ["vp9", "vp8"])
        #expect(try ServerConfig.load(arguments: ["--video-codecs", "vp8"], environment: ["SRTC_VIDEO_CODECS": "vp9"]).media.videoCodecs.names
            == ["vp8"])
    }

    @Test(arguments: ["", "vp7", "vp9,vp9", "h265,vp8", "h264;profile-level-id=42e01f"])
    func aListWithAnUnknownOrRepeatedCodecIsRefused(_ value: String) {
        #expect(throws: ConfigError.invalidValue("video-codecs", value)) {
            try ServerConfig.load(arguments: ["--video-codecs", value], environment: [:])
        }
    }
}

extension ClientSDP.Section {
    /// The section's shape, for test names.
    var testName: String {
        switch self {
        case .audio: return "audio"
        case .simulcast: return "simulcast VP8, H.264"
        case .video: return "VP8"
        case .h264Only: return "H.264 only"
        case .vp9First: return "VP9 first"
        case .av1First: return "AV1 first"
        case .chromiumDefault: return "Chromium's VP8, VP9, AV1, H.264"
        }
    }
}
