/// An SDP fragment of the `application/trickle-ice-sdpfrag` media type (RFC 8840 §9): the ICE
/// lines of a description without its session lines, as WHIP and WHEP carry them in `PATCH`
/// (RFC 9725 §4.3): credentials (`a=ice-ufrag`, `a=ice-pwd`, `a=ice-options`), then per media
/// section its `m=` line, `a=mid`, candidates and `a=end-of-candidates`. Credentials may stand at
/// session level or inside a section; `credentials` reads them wherever they are.
public struct ICEFragment: Hashable, Sendable {
    // MARK: - Types

    /// One `m=` section of the fragment.
    public struct Section: Hashable, Sendable {
        /// The `m=` line's value (`audio 9 UDP/TLS/RTP/SAVPF 111`), kept as sent.
        public var mediaLine: String
        public var mid: String?
        public var iceUfrag: String?
        public var icePwd: String?
        public var candidates: [Candidate]
        public var endOfCandidates: Bool

        public init(mediaLine: String, mid: String? = nil, iceUfrag: String? = nil, icePwd: String? = nil,
                    candidates: [Candidate] = [], endOfCandidates: Bool = false) {
            self.mediaLine = mediaLine; self.mid = mid; self.iceUfrag = iceUfrag; self.icePwd = icePwd
            self.candidates = candidates; self.endOfCandidates = endOfCandidates
        }
    }

    // MARK: - Properties

    public var iceLite: Bool
    public var iceUfrag: String?
    public var icePwd: String?
    public var iceOptions: [String]
    /// Candidates before any `m=` line (allowed by RFC 8840 §9 for a single-section session).
    public var candidates: [Candidate]
    public var endOfCandidates: Bool
    public var sections: [Section]

    public init(iceLite: Bool = false, iceUfrag: String? = nil, icePwd: String? = nil, iceOptions: [String] = [],
                candidates: [Candidate] = [], endOfCandidates: Bool = false, sections: [Section] = []) {
        self.iceLite = iceLite; self.iceUfrag = iceUfrag; self.icePwd = icePwd; self.iceOptions = iceOptions
        self.candidates = candidates; self.endOfCandidates = endOfCandidates; self.sections = sections
    }

    /// The ICE username fragment and password the fragment names (session level, else the first
    /// section that has both); `nil` when it names none. New ones mean an ICE restart (RFC 9725 §4.3.2).
    public var credentials: (ufrag: String, pwd: String)? {
        if let u = iceUfrag, let p = icePwd { return (u, p) }
        for s in sections { if let u = s.iceUfrag, let p = s.icePwd { return (u, p) } }
        return nil
    }

    /// Every candidate of the fragment, session level first.
    public var allCandidates: [Candidate] { candidates + sections.flatMap(\.candidates) }

    // MARK: - Parsing

    /// Reads a fragment; lines end with CRLF or LF, blank lines are skipped. Lines other than
    /// `a=` and `m=` (RFC 8840 §9 allows any SDP line) are ignored; attributes other than the ICE
    /// ones and `mid` are ignored too.
    /// - Throws: `SDPError.malformedLine` for a line that is not `<letter>=<value>` or holds
    ///   control characters; `SDPError.invalidAttribute` for an ICE attribute that does not
    ///   follow its grammar (RFC 8839 §5) or a credential given twice in one place.
    public init(parsing text: String) throws(SDPError) {
        self.init()
        var lineNumber = 0
        // "\r\n" is one Character in Swift: split on it as well as on a bare "\n".
        for raw in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            lineNumber += 1
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw
            if line.isEmpty { continue }
            let bytes = line.utf8
            guard bytes.count >= 2, bytes.first.map({ (0x61 ... 0x7A).contains($0) }) == true,
                  bytes[bytes.index(after: bytes.startIndex)] == UInt8(ascii: "="),
                  !bytes.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
                throw .malformedLine(line: lineNumber)
            }
            let value = line.dropFirst(2)
            switch line.first {
            case "m":
                guard !value.isEmpty else { throw .invalidValue(line: lineNumber, type: "m") }
                sections.append(Section(mediaLine: String(value)))
            case "a":
                try apply(attribute: value, line: lineNumber)
            default:
                continue
            }
        }
    }

    private mutating func apply(attribute: Substring, line: Int) throws(SDPError) {
        let colon = attribute.firstIndex(of: ":")
        let name = colon.map { attribute[..<$0] } ?? attribute
        let value = colon.map { attribute[attribute.index(after: $0)...] } ?? ""
        switch name {
        case "ice-ufrag", "ice-pwd":
            // RFC 8839 §5.4: ufrag 4–256, pwd 22–256 ice-chars.
            let range = name == "ice-ufrag" ? 4 ... 256 : 22 ... 256
            guard range.contains(value.utf8.count), SDPScanner.isAlphanumeric(value, extra: "+/") else {
                throw .invalidAttribute(line: line, name: String(name))
            }
            try setCredential(String(name), String(value), line: line)
        case "ice-options":
            let options = SDPScanner.fields(value)
            guard !options.isEmpty, options.allSatisfy(SDPScanner.isToken) else { throw .invalidAttribute(line: line, name: "ice-options") }
            iceOptions += options.map(String.init)
        case "ice-lite":
            iceLite = true
        case "mid":
            guard !sections.isEmpty, !value.isEmpty, sections[sections.count - 1].mid == nil,
                  SDPScanner.isVisible(value) else { throw .invalidAttribute(line: line, name: "mid") }
            sections[sections.count - 1].mid = String(value)
        case "candidate":
            guard let candidate = Candidate.parse(value) else { throw .invalidAttribute(line: line, name: "candidate") }
            if sections.isEmpty { candidates.append(candidate) } else { sections[sections.count - 1].candidates.append(candidate) }
        case "end-of-candidates":
            if sections.isEmpty { endOfCandidates = true } else { sections[sections.count - 1].endOfCandidates = true }
        default:
            break
        }
    }

    private mutating func setCredential(_ name: String, _ value: String, line: Int) throws(SDPError) {
        let isUfrag = name == "ice-ufrag"
        if sections.isEmpty {
            guard (isUfrag ? iceUfrag : icePwd) == nil else { throw .invalidAttribute(line: line, name: name) }
            if isUfrag { iceUfrag = value } else { icePwd = value }
        } else {
            let i = sections.count - 1
            guard (isUfrag ? sections[i].iceUfrag : sections[i].icePwd) == nil else { throw .invalidAttribute(line: line, name: name) }
            if isUfrag { sections[i].iceUfrag = value } else { sections[i].icePwd = value }
        }
    }

    // MARK: - Serialization

    /// The fragment's lines, each ending in CRLF.
    public func serialize() -> String {
        var out = ""
        func attribute(_ text: String) { out += "a=" + text + "\r\n" }
        if iceLite { attribute("ice-lite") }
        if let iceUfrag { attribute("ice-ufrag:" + iceUfrag) }
        if let icePwd { attribute("ice-pwd:" + icePwd) }
        if !iceOptions.isEmpty { attribute("ice-options:" + iceOptions.joined(separator: " ")) }
        for c in candidates { attribute(c.candidateLine) }
        if endOfCandidates { attribute("end-of-candidates") }
        for s in sections {
            out += "m=" + s.mediaLine + "\r\n"
            if let mid = s.mid { attribute("mid:" + mid) }
            if let u = s.iceUfrag { attribute("ice-ufrag:" + u) }
            if let p = s.icePwd { attribute("ice-pwd:" + p) }
            for c in s.candidates { attribute(c.candidateLine) }
            if s.endOfCandidates { attribute("end-of-candidates") }
        }
        return out
    }
}
