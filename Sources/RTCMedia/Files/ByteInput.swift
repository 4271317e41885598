// Buffered byte input from a file (C stdio) or memory, shared by the Y4M and WAV readers so each parser
// works the same on disk files and on in-memory fixtures.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A forward-reading byte source that can also rewind to a saved position.
final class ByteInput {
    private enum Backing {
        case file(UnsafeMutablePointer<FILE>)
        case memory([UInt8])
    }

    private let backing: Backing
    private var position = 0

    init(path: String) throws {
        guard let file = fopen(path, "rb") else { throw MediaFileError.cannotOpen(path: path, errno: errno) }
        backing = .file(file)
    }

    init(bytes: [UInt8]) { backing = .memory(bytes) }

    deinit {
        if case .file(let file) = backing { fclose(file) }
    }

    /// Bytes consumed since the start.
    var offset: Int { position }

    /// Reads up to `buffer.count` bytes; fewer only at the end of the data.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return 0 }
        switch backing {
        case .file(let file):
            let count = fread(base, 1, buffer.count, file)
            if count < buffer.count, ferror(file) != 0 { throw MediaFileError.ioFailed(errno: errno) }
            position += count
            return count
        case .memory(let bytes):
            let count = min(buffer.count, bytes.count - position)
            bytes.withUnsafeBytes { source in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[position ..< position + count]))
            }
            position += count
            return count
        }
    }

    /// Reads exactly `count` bytes, or nil when the data ends first.
    func read(count: Int) throws -> [UInt8]? {
        var output = [UInt8](repeating: 0, count: count)
        let got = try output.withUnsafeMutableBytes { try read(into: $0) }
        return got == count ? output : nil
    }

    /// Reads one byte, or nil at the end.
    func readByte() throws -> UInt8? {
        var byte: UInt8 = 0
        return try withUnsafeMutableBytes(of: &byte) { try read(into: $0) } == 1 ? byte : nil
    }

    /// Reads bytes up to (not including) a newline, at most `limit` bytes; nil at the end of the data.
    /// - Throws: `MediaFileError.invalidHeader` when no newline comes within `limit` bytes.
    func readLine(limit: Int) throws -> [UInt8]? {
        var line: [UInt8] = []
        while let byte = try readByte() {
            if byte == 0x0A { return line }
            guard line.count < limit else { throw MediaFileError.invalidHeader("line longer than \(limit) bytes") }
            line.append(byte)
        }
        if line.isEmpty { return nil }
        throw MediaFileError.truncated
    }

    /// Skips `count` bytes; false when the data ends first.
    func skip(_ count: Int) throws -> Bool {
        guard count > 0 else { return count == 0 }
        switch backing {
        case .file:
            var scratch = [UInt8](repeating: 0, count: min(count, 65_536))
            var remaining = count
            while remaining > 0 {
                let chunk = min(remaining, scratch.count)
                let got = try scratch.withUnsafeMutableBytes { try read(into: UnsafeMutableRawBufferPointer(rebasing: $0[0..<chunk])) }
                guard got == chunk else { return false }
                remaining -= chunk
            }
            return true
        case .memory(let bytes):
            guard count <= bytes.count - position else { position = bytes.count; return false }
            position += count
            return true
        }
    }

    /// Returns to an offset previously reached.
    func seek(to target: Int) throws {
        switch backing {
        case .file(let file):
            guard fseek(file, target, SEEK_SET) == 0 else { throw MediaFileError.ioFailed(errno: errno) }
        case .memory(let bytes):
            guard target <= bytes.count else { throw MediaFileError.truncated }
        }
        position = target
    }
}
