// Byte output to a file (C stdio) or memory, shared by the Y4M and WAV writers; WAV needs to go back and
// patch its size fields when the file is closed.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A byte sink that appends, and can overwrite bytes already written.
final class ByteOutput {
    private enum Backing {
        case file(UnsafeMutablePointer<FILE>)
        case memory
    }

    private var backing: Backing?
    /// Everything written, for the in-memory backing.
    private(set) var bytes: [UInt8] = []
    private(set) var offset = 0

    init(path: String) throws {
        guard let file = fopen(path, "wb") else { throw MediaFileError.cannotOpen(path: path, errno: errno) }
        backing = .file(file)
    }

    init() { backing = .memory }

    deinit { try? close() }

    func write(_ data: UnsafeRawBufferPointer) throws {
        switch backing {
        case .file(let file)?:
            guard let base = data.baseAddress else { return }
            guard fwrite(base, 1, data.count, file) == data.count else { throw MediaFileError.ioFailed(errno: errno) }
        case .memory?:
            bytes.append(contentsOf: data)
        case nil:
            throw MediaFileError.closed
        }
        offset += data.count
    }

    func write(_ data: [UInt8]) throws {
        try data.withUnsafeBytes { try write($0) }
    }

    /// Overwrites bytes at `position` (already written), then continues appending at the end.
    func overwrite(at position: Int, with data: [UInt8]) throws {
        switch backing {
        case .file(let file)?:
            guard fseek(file, position, SEEK_SET) == 0,
                  data.withUnsafeBytes({ fwrite($0.baseAddress, 1, data.count, file) }) == data.count,
                  fseek(file, 0, SEEK_END) == 0 else { throw MediaFileError.ioFailed(errno: errno) }
        case .memory?:
            bytes.replaceSubrange(position ..< position + data.count, with: data)
        case nil:
            throw MediaFileError.closed
        }
    }

    func flush() {
        if case .file(let file)? = backing { fflush(file) }
    }

    func close() throws {
        if case .file(let file)? = backing {
            backing = nil
            guard fclose(file) == 0 else { throw MediaFileError.ioFailed(errno: errno) }
        }
        backing = nil
    }
}
