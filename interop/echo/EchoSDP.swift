// A small private SDP reader/writer for the echo endpoint only, until RTCWire's SDP model lands
// on main. It reads what the endpoint needs from a browser offer and writes an ICE-lite,
// DTLS-passive, BUNDLE + rtcp-mux answer (RFC 8829 §5.3, RFC 8843, RFC 5761).
import RTCTransport

/// What the endpoint takes from a browser's offer.
struct EchoOffer {
    struct Section {
        var kind: String          // audio, video, application
        var mid: String
        var protocolName: String  // UDP/TLS/RTP/SAVPF
        var payloadTypes: [String: Int] = [:] // lowercase "opus/48000/2" → PT
        var fmtp: [Int: String] = [:]
    }

    var ufrag = ""
    var pwd = ""
    var fingerprint = ""
    var sections: [Section] = []

    init(_ sdp: String) {
        var current: Section?
        for rawLine in sdp.split(whereSeparator: \.isNewline) { // "\r\n" is one Character
            let line = String(rawLine)
            if line.hasPrefix("m=") {
                if let s = current { sections.append(s) }
                let fields = line.dropFirst(2).split(separator: " ")
                current = Section(kind: fields.first.map(String.init) ?? "", mid: "",
                                  protocolName: fields.count > 2 ? String(fields[2]) : "")
                continue
            }
            guard line.hasPrefix("a=") else { continue }
            let attribute = line.dropFirst(2)
            let (name, value) = attribute.firstIndex(of: ":").map {
                (String(attribute[..<$0]), String(attribute[attribute.index(after: $0)...]))
            } ?? (String(attribute), "")
            switch name {
            case "ice-ufrag": if ufrag.isEmpty { ufrag = value }
            case "ice-pwd": if pwd.isEmpty { pwd = value }
            case "fingerprint": if fingerprint.isEmpty { fingerprint = value }
            case "mid": current?.mid = value
            case "rtpmap":
                let parts = value.split(separator: " ", maxSplits: 1)
                if parts.count == 2, let pt = Int(parts[0]), current?.payloadTypes[parts[1].lowercased()] == nil {
                    current?.payloadTypes[parts[1].lowercased()] = pt
                }
            case "fmtp":
                let parts = value.split(separator: " ", maxSplits: 1)
                if parts.count == 2, let pt = Int(parts[0]) { current?.fmtp[pt] = String(parts[1]) }
            default: break
            }
        }
        if let s = current { sections.append(s) }
    }
}

/// Writes the answer.
enum EchoAnswer {
    struct Stream {
        var payloadType: Int
        var ssrc: UInt32
    }

    static func make(offer: EchoOffer, ice: ICECredentials, fingerprint: DTLSFingerprint,
                     candidate: ICECandidate, audio: (Int, UInt32)?, video: (Int, UInt32)?) -> String {
        var lines = ["v=0", "o=- 4611731400430051336 2 IN IP4 127.0.0.1", "s=-", "t=0 0"]
        let accepted = offer.sections.filter { ($0.kind == "audio" && audio != nil) || ($0.kind == "video" && video != nil) }
        lines.append("a=group:BUNDLE " + accepted.map(\.mid).joined(separator: " "))
        lines.append("a=ice-lite")
        lines.append("a=msid-semantic: WMS echo")
        let ip = candidate.address.ipString, port = candidate.address.port
        for section in offer.sections {
            let stream: (Int, UInt32)? = section.kind == "audio" ? audio : section.kind == "video" ? video : nil
            guard let (pt, ssrc) = stream else {
                lines.append("m=\(section.kind) 0 \(section.protocolName) 0")
                lines.append("c=IN IP4 0.0.0.0")
                lines.append("a=mid:\(section.mid)")
                continue
            }
            lines.append("m=\(section.kind) \(port) UDP/TLS/RTP/SAVPF \(pt)")
            lines.append("c=IN IP4 \(ip)")
            lines.append("a=rtcp:\(port) IN IP4 \(ip)")
            lines.append("a=ice-ufrag:\(ice.ufrag)")
            lines.append("a=ice-pwd:\(ice.pwd)")
            lines.append("a=fingerprint:\(fingerprint.sdpValue)")
            lines.append("a=setup:passive")
            lines.append("a=mid:\(section.mid)")
            lines.append("a=sendrecv")
            lines.append("a=msid:echo echo-\(section.kind)")
            lines.append("a=rtcp-mux")
            lines.append("a=rtcp-rsize")
            if section.kind == "audio" {
                lines.append("a=rtpmap:\(pt) opus/48000/2")
                lines.append("a=fmtp:\(pt) minptime=10;useinbandfec=1")
            } else {
                lines.append("a=rtpmap:\(pt) VP8/90000")
                lines.append("a=rtcp-fb:\(pt) nack")
                lines.append("a=rtcp-fb:\(pt) nack pli")
                lines.append("a=rtcp-fb:\(pt) ccm fir")
            }
            lines.append("a=ssrc:\(ssrc) cname:srtc-echo")
            lines.append("a=ssrc:\(ssrc) msid:echo echo-\(section.kind)")
            lines.append("a=\(candidate.sdpAttribute)")
            lines.append("a=end-of-candidates")
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }
}
