// Reading one `m=` section and its lines (RFC 8866 §5.14, RFC 8829 §5.8).

struct MediaSectionParser {
    private var media: MediaDescription
    private var rtpmaps: [UInt8: (name: String, clockRate: UInt32, channels: UInt16?)] = [:]
    private var fmtps: [UInt8: String] = [:]
    private var feedback: [UInt8: [RTCPFeedback]] = [:]
    private let payloadTypes: Set<UInt8>
    private let isRTP: Bool

    /// Reads `<media> <port>[/<count>] <proto> <fmt> …`.
    init(mLine value: Substring, line: Int) throws(SDPError) {
        let invalid = SDPError.invalidValue(line: line, type: "m")
        let parts = SDPScanner.fields(value)
        guard parts.count >= 4, SDPScanner.isToken(parts[0]), SDPScanner.isVisible(parts[2]) else { throw invalid }
        let (portText, countText) = SDPScanner.splitOnce(parts[1], "/")
        guard let port = SDPScanner.number(portText, as: UInt16.self) else { throw invalid }
        var media = MediaDescription(kind: MediaKind(rawValue: String(parts[0])), port: port, proto: String(parts[2]))
        if let countText {
            guard let count = SDPScanner.number(countText, as: UInt16.self) else { throw invalid }
            media.portCount = count
        }
        media.formats = parts[3...].map(String.init)
        var payloadTypes = Set<UInt8>()
        if media.isRTP {
            // RTP formats are distinct payload type numbers (RFC 8866 §5.14).
            for format in parts[3...] {
                guard let type = SDPScanner.number(format, as: UInt8.self), type <= 127,
                      payloadTypes.insert(type).inserted else { throw invalid }
            }
        } else {
            guard parts[3...].allSatisfy(SDPScanner.isVisible) else { throw invalid }
        }
        self.media = media
        self.payloadTypes = payloadTypes
        self.isRTP = media.isRTP
    }

    mutating func handle(_ type: Character, _ value: Substring, line: Int) throws(SDPError) {
        switch type {
        case "c":
            guard media.connection == nil, let connection = SDPConnection.parse(value) else {
                throw .invalidValue(line: line, type: "c")
            }
            media.connection = connection
        case "i", "b", "k":
            media.otherLines.append(SDPLine(type: type, value: String(value)))
        case "a":
            try handleAttribute(value, line: line)
        default:
            throw .malformedLine(line: line)
        }
    }

    private mutating func handleAttribute(_ text: Substring, line: Int) throws(SDPError) {
        let (nameText, value) = SDPScanner.splitOnce(text, ":")
        guard SDPScanner.isToken(nameText) else { throw .malformedLine(line: line) }
        let name = String(nameText)
        let invalid = SDPError.invalidAttribute(line: line, name: name)
        let flag = value == nil
        switch name {
        case "mid":
            guard media.mid == nil, let value, SDPScanner.isToken(value) else { throw invalid }
            media.mid = String(value)
        case "sendrecv", "sendonly", "recvonly", "inactive":
            guard flag, media.direction == nil else { throw invalid }
            media.direction = Direction(rawValue: name)
        case "rtcp-mux": guard flag else { throw invalid }; media.rtcpMux = true
        case "rtcp-mux-only": guard flag else { throw invalid }; media.rtcpMuxOnly = true
        case "rtcp-rsize": guard flag else { throw invalid }; media.rtcpReducedSize = true
        case "extmap-allow-mixed": guard flag else { throw invalid }; media.extmapAllowMixed = true
        case "end-of-candidates": guard flag else { throw invalid }; media.endOfCandidates = true
        case "rtpmap" where isRTP:
            try handleRTPMap(value, invalid: invalid)
        case "fmtp" where isRTP:
            try handleFMTP(value, invalid: invalid)
        case "rtcp-fb" where isRTP:
            try handleFeedback(value, invalid: invalid)
        case "extmap":
            guard let value, let extmap = ExtMap.parse(value) else { throw invalid }
            media.extensions.append(extmap)
        case "ssrc":
            guard let value, let ssrc = SSRCAttribute.parse(value) else { throw invalid }
            media.ssrcs.append(ssrc)
        case "ssrc-group":
            guard let value, let group = SSRCGroup.parse(value) else { throw invalid }
            media.ssrcGroups.append(group)
        case "msid":
            guard let value, let id = MediaStreamID.parse(value) else { throw invalid }
            media.msid.append(id)
        case "rid":
            guard let value, let rid = RID.parse(value) else { throw invalid }
            media.rids.append(rid)
        case "simulcast":
            guard media.simulcast == nil, let value, let simulcast = Simulcast.parse(value) else { throw invalid }
            media.simulcast = simulcast
        case "candidate":
            guard let value, let candidate = Candidate.parse(value) else { throw invalid }
            media.candidates.append(candidate)
        case "sctp-port":
            guard media.sctpPort == nil, let value, let port = SDPScanner.number(value, as: UInt16.self) else { throw invalid }
            media.sctpPort = port
        case "max-message-size":
            guard media.maxMessageSize == nil, let value, let size = SDPScanner.number(value, as: UInt64.self) else {
                throw invalid
            }
            media.maxMessageSize = size
        default:
            var transport = TransportAttributes(
                ufrag: media.iceUfrag, pwd: media.icePwd, options: media.iceOptions,
                fingerprints: media.fingerprints, setup: media.setup)
            if try transport.handle(name, value, line: line) {
                (media.iceUfrag, media.icePwd, media.iceOptions, media.fingerprints, media.setup)
                    = (transport.ufrag, transport.pwd, transport.options, transport.fingerprints, transport.setup)
            } else {
                media.attributes.append(SDPAttribute(name: name, value: value.map(String.init)))
            }
        }
    }

    /// Reads `<pt> ` and the rest; a payload type missing from the `m=` line keeps the whole
    /// attribute as unknown so a rewrite reproduces it.
    private mutating func payloadType(
        _ name: String, _ value: Substring?, invalid: SDPError
    ) throws(SDPError) -> (UInt8, Substring)? {
        guard let value else { throw invalid }
        let (typeText, rest) = SDPScanner.splitOnce(value, " ")
        guard let rest, let type = SDPScanner.number(typeText, as: UInt8.self), type <= 127 else { throw invalid }
        guard payloadTypes.contains(type) else {
            media.attributes.append(SDPAttribute(name: name, value: String(value)))
            return nil
        }
        return (type, rest.trimmingSpaces)
    }

    /// `a=rtpmap:<pt> <name>/<clock>[/<channels>]`.
    private mutating func handleRTPMap(_ value: Substring?, invalid: SDPError) throws(SDPError) {
        guard let (type, rest) = try payloadType("rtpmap", value, invalid: invalid) else { return }
        let parts = rest.split(separator: "/", omittingEmptySubsequences: false)
        guard rtpmaps[type] == nil, (2 ... 3).contains(parts.count), SDPScanner.isToken(parts[0]),
              let clockRate = SDPScanner.number(parts[1], as: UInt32.self) else { throw invalid }
        var channels: UInt16? = nil
        if parts.count == 3 {
            guard let count = SDPScanner.number(parts[2], as: UInt16.self) else { throw invalid }
            channels = count
        }
        rtpmaps[type] = (String(parts[0]), clockRate, channels)
    }

    /// `a=fmtp:<pt> <parameters>`.
    private mutating func handleFMTP(_ value: Substring?, invalid: SDPError) throws(SDPError) {
        guard let (type, rest) = try payloadType("fmtp", value, invalid: invalid) else { return }
        guard fmtps[type] == nil, !rest.isEmpty else { throw invalid }
        fmtps[type] = String(rest)
    }

    /// `a=rtcp-fb:<pt>|* <type> [<parameters>]`.
    private mutating func handleFeedback(_ value: Substring?, invalid: SDPError) throws(SDPError) {
        guard let value else { throw invalid }
        let parts = SDPScanner.fields(value)
        guard parts.count >= 2, parts[1...].allSatisfy(SDPScanner.isVisible) else { throw invalid }
        let entry = RTCPFeedback(
            type: String(parts[1]), parameter: parts.count > 2 ? parts[2...].joined(separator: " ") : nil)
        if parts[0] == "*" {
            media.wildcardFeedback.append(entry)
            return
        }
        guard let (type, _) = try payloadType("rtcp-fb", value, invalid: invalid) else { return }
        feedback[type, default: []].append(entry)
    }

    /// The section with one codec per payload type, in `m=` order.
    func finish() -> MediaDescription {
        var media = self.media
        if isRTP {
            media.codecs = media.formats.compactMap { format in
                guard let type = UInt8(format) else { return nil }
                let map = rtpmaps[type]
                return Codec(
                    payloadType: type, name: map?.name ?? "", clockRate: map?.clockRate ?? 0, channels: map?.channels,
                    formatParameters: fmtps[type], feedback: feedback[type] ?? [])
            }
        }
        media.otherLines = SDPParser.stableSorted(media.otherLines, by: SessionDescription.mediaRank)
        return media
    }
}
