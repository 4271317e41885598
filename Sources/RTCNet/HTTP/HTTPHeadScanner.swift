/// Finds and splits the head (start line and header fields) of an HTTP/1.1 message.
///
/// Lines end in CRLF; a bare LF is accepted as a line end too (RFC 9112 §2.2), a bare CR is not.
/// Scanning resumes where it stopped, so a head that arrives a byte at a time costs O(n), not O(n²).
struct HTTPHeadScanner {
    /// Offset up to which no head end was found.
    private var scanned = 0

    mutating func reset() { scanned = 0 }

    /// The length of the head including its final empty line, or `nil` when it is not complete.
    mutating func findEnd(in bytes: UnsafeRawBufferPointer) -> Int? {
        var i = scanned
        while i < bytes.count {
            guard let lf = Self.indexOfLF(in: bytes, from: i) else {
                scanned = bytes.count
                return nil
            }
            // The head ends with an empty line: LF LF or LF CR LF.
            if lf + 1 < bytes.count, bytes[lf + 1] == 0x0A { return lf + 2 }
            if lf + 2 < bytes.count, bytes[lf + 1] == 0x0D, bytes[lf + 2] == 0x0A { return lf + 3 }
            if lf + 2 >= bytes.count {
                scanned = lf  // may complete once more bytes arrive
                return nil
            }
            i = lf + 1
        }
        scanned = i
        return nil
    }

    /// Offset of the first LF at or after `start`.
    static func indexOfLF(in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard start < bytes.count, let base = bytes.baseAddress else { return nil }
        var i = start
        while i < bytes.count {
            if base.load(fromByteOffset: i, as: UInt8.self) == 0x0A { return i }
            i += 1
        }
        return nil
    }

    /// The lines of `head` (without terminators), stopping at the empty line. A CR inside a line
    /// is left there; the start-line and field parsers refuse it as a control byte.
    static func lines(of head: UnsafeRawBufferPointer) -> [Range<Int>] {
        var lines: [Range<Int>] = []
        var start = 0
        while start < head.count, let lf = indexOfLF(in: head, from: start) {
            var end = lf
            if end > start, head[end - 1] == 0x0D { end -= 1 }
            if end == start { break }
            lines.append(start..<end)
            start = lf + 1
        }
        return lines
    }

    /// Parses `name: value` header lines (RFC 9112 §5) into `headers`.
    static func parseFields(_ head: UnsafeRawBufferPointer, lines: ArraySlice<Range<Int>>, maxCount: Int) throws(HTTPParserError) -> HTTPHeaders {
        guard lines.count <= maxCount else { throw .tooManyHeaderFields }
        var headers = HTTPHeaders()
        for line in lines {
            // obs-fold (a line starting with whitespace) is rejected (RFC 9112 §5.2).
            guard let first = line.first, head[first] != 0x20, head[first] != 0x09 else { throw .malformedHeader }
            var colon = -1
            for i in line where head[i] == 0x3A { colon = i; break }
            guard colon > line.lowerBound else { throw .malformedHeader }
            // No whitespace between name and colon (RFC 9112 §5.1): every name byte is a tchar.
            for i in line.lowerBound..<colon where !isTokenByte(head[i]) { throw .malformedHeader }
            var valueStart = colon + 1, valueEnd = line.upperBound
            while valueStart < valueEnd, head[valueStart] == 0x20 || head[valueStart] == 0x09 { valueStart += 1 }
            while valueEnd > valueStart, head[valueEnd - 1] == 0x20 || head[valueEnd - 1] == 0x09 { valueEnd -= 1 }
            for i in valueStart..<valueEnd {
                let c = head[i]
                if (c < 0x20 && c != 0x09) || c == 0x7F { throw .malformedHeader }
            }
            headers.add(
                name: String(decoding: UnsafeRawBufferPointer(rebasing: head[line.lowerBound..<colon]), as: UTF8.self),
                value: String(decoding: UnsafeRawBufferPointer(rebasing: head[valueStart..<valueEnd]), as: UTF8.self)
            )
        }
        return headers
    }

    /// `tchar` of RFC 9110 §5.6.2.
    @inline(__always)
    static func isTokenByte(_ c: UInt8) -> Bool {
        switch c {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return true
        case 0x21, 0x23, 0x24, 0x25, 0x26, 0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x5E, 0x5F, 0x60, 0x7C, 0x7E: return true
        default: return false
        }
    }

    /// Parses `HTTP/x.y`; `nil` when it is not that shape.
    static func parseVersion(_ bytes: UnsafeRawBufferPointer) -> HTTPVersion? {
        guard bytes.count == 8, bytes[0] == 0x48, bytes[1] == 0x54, bytes[2] == 0x54, bytes[3] == 0x50,
              bytes[4] == 0x2F, bytes[6] == 0x2E,
              (0x30...0x39).contains(bytes[5]), (0x30...0x39).contains(bytes[7]) else { return nil }
        return HTTPVersion(major: Int(bytes[5] - 0x30), minor: Int(bytes[7] - 0x30))
    }

    /// Parses a `Content-Length` field set: one or more copies (each possibly a comma list) that
    /// must all agree (RFC 9110 §8.6). Values above `limit` throw `bodyTooLarge` without overflowing.
    static func contentLength(_ values: [String], limit: Int) throws(HTTPParserError) -> Int? {
        var result: Int?
        for value in values {
            for part in value.split(separator: ",", omittingEmptySubsequences: false) {
                let digits = part.trimmingSpaces.utf8
                guard !digits.isEmpty else { throw .invalidContentLength }
                var n = 0
                var tooLarge = false
                for c in digits {
                    guard c >= 0x30, c <= 0x39 else { throw .invalidContentLength }
                    if !tooLarge {
                        let (m, o1) = n.multipliedReportingOverflow(by: 10)
                        let (s, o2) = m.addingReportingOverflow(Int(c - 0x30))
                        if o1 || o2 || s > limit { tooLarge = true } else { n = s }
                    }
                }
                if tooLarge { throw .bodyTooLarge }
                if let r = result, r != n { throw .invalidContentLength }
                result = n
            }
        }
        return result
    }
}
