// Writing a session description: RFC 8866 §5 line order, CRLF line ends.

extension SessionDescription {
    /// Ranks of preserved line types, so each is written where RFC 8866 §5 puts it.
    static func sessionRank(_ type: Character) -> Int {
        switch type {
        case "i", "u", "e", "p": return 0  // before c=
        case "b": return 1  // after c=
        case "t", "r", "z": return 2  // after t=
        default: return 3  // k=
        }
    }

    static func mediaRank(_ type: Character) -> Int { type == "i" ? 0 : 1 }

    /// The description's text, each line ended by CRLF.
    public func serialize() -> String {
        var out = SDPWriter()
        out.line("v", "\(version)")
        out.line("o", origin.text)
        out.line("s", sessionName)
        out.lines(otherLines) { Self.sessionRank($0) == 0 }
        if let connection { out.line("c", connection.text) }
        out.lines(otherLines) { Self.sessionRank($0) == 1 }
        out.line("t", "\(timing.start) \(timing.stop)")
        out.lines(otherLines) { Self.sessionRank($0) >= 2 }
        for group in groups { out.attribute("group", group.description) }
        if extmapAllowMixed { out.attribute("extmap-allow-mixed") }
        if let msidSemantic { out.attribute("msid-semantic", msidSemantic.description) }
        if iceLite { out.attribute("ice-lite") }
        out.transport(ufrag: iceUfrag, pwd: icePwd, options: iceOptions, fingerprints: fingerprints, setup: setup)
        for attribute in attributes { out.attribute(attribute) }
        for section in media { section.write(into: &out) }
        return out.text
    }
}

extension MediaDescription {
    func write(into out: inout SDPWriter) {
        let portText = portCount.map { "\(port)/\($0)" } ?? "\(port)"
        out.line("m", ([kind.rawValue, portText, proto] + formats).joined(separator: " "))
        out.lines(otherLines) { SessionDescription.mediaRank($0) == 0 }
        if let connection { out.line("c", connection.text) }
        out.lines(otherLines) { SessionDescription.mediaRank($0) == 1 }
        out.transport(ufrag: iceUfrag, pwd: icePwd, options: iceOptions, fingerprints: fingerprints, setup: setup)
        if let mid { out.attribute("mid", mid) }
        for extmap in extensions { out.attribute("extmap", extmap.description) }
        if extmapAllowMixed { out.attribute("extmap-allow-mixed") }
        if let direction { out.attribute(direction.rawValue) }
        for id in msid { out.attribute("msid", id.description) }
        if rtcpMux { out.attribute("rtcp-mux") }
        if rtcpMuxOnly { out.attribute("rtcp-mux-only") }
        if rtcpReducedSize { out.attribute("rtcp-rsize") }
        for feedback in wildcardFeedback { out.attribute("rtcp-fb", "* \(feedback)") }
        for codec in codecs {
            if !codec.name.isEmpty { out.attribute("rtpmap", codec.rtpmapValue) }
            for feedback in codec.feedback { out.attribute("rtcp-fb", "\(codec.payloadType) \(feedback)") }
            if let parameters = codec.formatParameters { out.attribute("fmtp", "\(codec.payloadType) \(parameters)") }
        }
        for group in ssrcGroups { out.attribute("ssrc-group", group.description) }
        for ssrc in ssrcs { out.attribute("ssrc", ssrc.description) }
        for rid in rids { out.attribute("rid", rid.description) }
        if let simulcast { out.attribute("simulcast", simulcast.description) }
        if let sctpPort { out.attribute("sctp-port", "\(sctpPort)") }
        if let maxMessageSize { out.attribute("max-message-size", "\(maxMessageSize)") }
        for candidate in candidates { out.attribute("candidate", candidate.description) }
        if endOfCandidates { out.attribute("end-of-candidates") }
        for attribute in attributes { out.attribute(attribute) }
    }
}

/// Accumulates SDP lines.
struct SDPWriter {
    private(set) var text = ""

    mutating func line(_ type: Character, _ value: String) {
        text.append(type)
        text += "=" + value + "\r\n"
    }

    mutating func lines(_ lines: [SDPLine], where include: (Character) -> Bool) {
        for line in lines where include(line.type) { self.line(line.type, line.value) }
    }

    mutating func attribute(_ name: String, _ value: String? = nil) {
        line("a", value.map { "\(name):\($0)" } ?? name)
    }

    mutating func attribute(_ attribute: SDPAttribute) { line("a", attribute.text) }

    mutating func transport(
        ufrag: String?, pwd: String?, options: [String], fingerprints: [Fingerprint], setup: SetupRole?
    ) {
        if let ufrag { attribute("ice-ufrag", ufrag) }
        if let pwd { attribute("ice-pwd", pwd) }
        if !options.isEmpty { attribute("ice-options", options.joined(separator: " ")) }
        for fingerprint in fingerprints { attribute("fingerprint", fingerprint.description) }
        if let setup { attribute("setup", setup.rawValue) }
    }
}
