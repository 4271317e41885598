// Reading a session description line by line (RFC 8866 §5). Lines end in CRLF or LF; every
// line is checked against its grammar and a bad one throws, naming the line.

extension SessionDescription {
    /// Parses SDP text.
    /// - Throws: `SDPError` naming the first line that does not follow its grammar.
    public init(parsing text: String) throws(SDPError) {
        var parser = SDPParser()
        self = try parser.parse(text)
    }
}

/// One pass over the lines, filling a session and its sections.
struct SDPParser {
    private var session = SessionDescription(origin: SDPOrigin(sessionID: "0"))
    private var section: MediaSectionParser?
    private var seen: Set<Character> = []

    mutating func parse(_ text: String) throws(SDPError) -> SessionDescription {
        var lineNumber = 0
        for rawLine in text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false) {
            lineNumber += 1
            var bytes = rawLine
            if bytes.last == 0x0D { bytes = bytes.dropLast() }
            if bytes.isEmpty { continue }
            guard bytes.count >= 2, bytes.allSatisfy({ $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }) else {
                throw .malformedLine(line: lineNumber)
            }
            let letter = bytes[bytes.startIndex]
            guard (0x61 ... 0x7A).contains(letter), bytes[bytes.index(after: bytes.startIndex)] == 0x3D else {
                throw .malformedLine(line: lineNumber)
            }
            let type = Character(Unicode.Scalar(letter))
            let value = Substring(bytes.dropFirst(2))
            try handle(type, value, line: lineNumber)
        }
        guard seen.contains("v") else { throw .missingLine("v") }
        try finishSection()
        for required: Character in ["o", "s", "t"] where !seen.contains(required) {
            throw .missingLine(String(required))
        }
        // Keep preserved lines in the order the writer emits them, so a rewrite reparses equal.
        session.otherLines = Self.stableSorted(session.otherLines, by: SessionDescription.sessionRank)
        return session
    }

    private mutating func handle(_ type: Character, _ value: Substring, line: Int) throws(SDPError) {
        if !seen.contains("v") {
            guard type == "v" else { throw .missingLine("v") }
            guard value == "0" else { throw .unsupportedVersion }
            seen.insert("v")
            return
        }
        if type == "m" {
            try finishSection()
            section = try MediaSectionParser(mLine: value, line: line)
            return
        }
        if section != nil {
            try section?.handle(type, value, line: line)
            return
        }
        try handleSessionLine(type, value, line: line)
    }

    private mutating func handleSessionLine(_ type: Character, _ value: Substring, line: Int) throws(SDPError) {
        switch type {
        case "v":
            throw .invalidValue(line: line, type: "v")
        case "o":
            guard !seen.contains("o"), let origin = SDPOrigin.parse(value) else { throw .invalidValue(line: line, type: "o") }
            session.origin = origin
        case "s":
            guard !seen.contains("s") else { throw .invalidValue(line: line, type: "s") }
            session.sessionName = String(value)
        case "c":
            guard !seen.contains("c"), let connection = SDPConnection.parse(value) else {
                throw .invalidValue(line: line, type: "c")
            }
            session.connection = connection
        case "t" where !seen.contains("t"):
            guard let timing = SDPTiming.parse(value) else { throw .invalidValue(line: line, type: "t") }
            session.timing = timing
        case "t", "i", "u", "e", "p", "b", "r", "z", "k":
            session.otherLines.append(SDPLine(type: type, value: String(value)))
        case "a":
            try handleSessionAttribute(value, line: line)
        default:
            throw .malformedLine(line: line)
        }
        seen.insert(type)
    }

    private mutating func handleSessionAttribute(_ text: Substring, line: Int) throws(SDPError) {
        let (nameText, value) = SDPScanner.splitOnce(text, ":")
        guard SDPScanner.isToken(nameText) else { throw .malformedLine(line: line) }
        let name = String(nameText)
        let invalid = SDPError.invalidAttribute(line: line, name: name)
        switch name {
        case "group":
            guard let value, let group = SDPGroup.parse(value) else { throw invalid }
            session.groups.append(group)
        case "msid-semantic":
            guard session.msidSemantic == nil, let value, let semantic = MSIDSemantic.parse(value) else { throw invalid }
            session.msidSemantic = semantic
        case "ice-lite":
            guard value == nil else { throw invalid }
            session.iceLite = true
        case "extmap-allow-mixed":
            guard value == nil else { throw invalid }
            session.extmapAllowMixed = true
        default:
            var transport = TransportAttributes(
                ufrag: session.iceUfrag, pwd: session.icePwd, options: session.iceOptions,
                fingerprints: session.fingerprints, setup: session.setup)
            if try transport.handle(name, value, line: line) {
                (session.iceUfrag, session.icePwd, session.iceOptions, session.fingerprints, session.setup)
                    = (transport.ufrag, transport.pwd, transport.options, transport.fingerprints, transport.setup)
            } else {
                session.attributes.append(SDPAttribute(name: name, value: value.map(String.init)))
            }
        }
    }

    private mutating func finishSection() throws(SDPError) {
        guard let finished = section else { return }
        session.media.append(finished.finish())
        section = nil
    }

    static func stableSorted(_ lines: [SDPLine], by rank: (Character) -> Int) -> [SDPLine] {
        lines.enumerated().sorted { (rank($0.element.type), $0.offset) < (rank($1.element.type), $1.offset) }.map(\.element)
    }
}

/// The ICE / DTLS attributes allowed at session and media level (RFC 8839 §5, RFC 8122, RFC 4145).
struct TransportAttributes {
    var ufrag: String?
    var pwd: String?
    var options: [String]
    var fingerprints: [Fingerprint]
    var setup: SetupRole?

    /// Applies `name` if it is a transport attribute; returns false for any other name.
    mutating func handle(_ name: String, _ value: Substring?, line: Int) throws(SDPError) -> Bool {
        let invalid = SDPError.invalidAttribute(line: line, name: name)
        switch name {
        case "ice-ufrag":
            guard ufrag == nil, let value, SDPScanner.isVisible(value) else { throw invalid }
            ufrag = String(value)
        case "ice-pwd":
            guard pwd == nil, let value, SDPScanner.isVisible(value) else { throw invalid }
            pwd = String(value)
        case "ice-options":
            guard let value else { throw invalid }
            let tokens = SDPScanner.fields(value)
            guard !tokens.isEmpty, tokens.allSatisfy(SDPScanner.isToken) else { throw invalid }
            options += tokens.map(String.init)
        case "fingerprint":
            guard let value, let fingerprint = Fingerprint.parse(value) else { throw invalid }
            fingerprints.append(fingerprint)
        case "setup":
            guard setup == nil, let value, let role = SetupRole(rawValue: String(value)) else { throw invalid }
            setup = role
        default:
            return false
        }
        return true
    }
}
