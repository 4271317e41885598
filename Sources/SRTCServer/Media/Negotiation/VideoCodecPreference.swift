import Foundation
import RTCWire

/// Which video codec the server takes from a publisher (`--video-codecs`, `SRTC_VIDEO_CODECS`;
/// docs/protocol.md, "publish"). With names, the answer to a publish offer carries the first of
/// them the offer has (H.264 in the offer's first H.264 profile the server takes), and an offer
/// with none of them is refused; without, the first codec of the offer the server takes: the
/// publisher's own order (its `setCodecPreferences`, the SDKs' preferred codec).
///
/// The join's `video_codecs` is not used here: it lists what a client decodes, and the Swift SDK
/// sends the same list whatever it encodes, so its order says nothing about what to send.
public struct VideoCodecPreference: Sendable, Equatable {
    // MARK: - Types

    /// The encoding names a list may hold: the video codecs the server forwards.
    public static let forwarded = ["vp8", "vp9", "av1", "h264"]

    /// Today's rule: the first codec of the offer the server takes.
    public static let offerOrder = VideoCodecPreference(names: [])

    // MARK: - Properties

    /// Lowercased encoding names, most preferred first; empty: the offer's own order.
    public let names: [String]

    // MARK: - Public API

    /// `names` lowercased; each must be one of `forwarded`, none twice.
    init(names: [String]) {
        self.names = names.map { $0.lowercased() }
    }

    /// A comma-separated list (`"vp9,vp8"`, spaces allowed); `nil` when it is empty, names a codec
    /// the server does not forward, or names one twice.
    public init?(parsing text: String) {
        let names = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard !names.isEmpty, names.allSatisfy(Self.forwarded.contains), Set(names).count == names.count else { return nil }
        self.init(names: names)
    }

    /// Whether the offer's own order decides (no list).
    public var isOfferOrder: Bool { names.isEmpty }

    // MARK: - Internals

    /// `capabilities` without the video codecs the list leaves out, so the answer to an offer
    /// with none of the named ones rejects its video sections (RFC 3264 §6: port 0).
    func narrowing(_ capabilities: MediaCapabilities) -> MediaCapabilities {
        guard !isOfferOrder else { return capabilities }
        var narrowed = capabilities
        narrowed.videoCodecs = capabilities.videoCodecs.filter { names.contains($0.name.lowercased()) }
        return narrowed
    }

    /// The codec to answer with among `accepted` (a section's negotiated codecs, in the offer's
    /// order): the first of the list's codecs that is there, else (no list) the first one.
    func choose(from accepted: [Codec]) -> Codec? {
        let media = accepted.filter { !$0.isRTX }
        guard !isOfferOrder else { return media.first }
        for name in names {
            if let codec = media.first(where: { $0.name.lowercased() == name }) { return codec }
        }
        return nil
    }
}
