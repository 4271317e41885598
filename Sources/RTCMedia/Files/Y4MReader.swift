// Reads YUV4MPEG2 (".y4m") video: a text header line, then frames each introduced by a "FRAME" line and
// holding raw planar pixels. Accepted colour spaces are the 8-bit 4:2:0 ones (C420, C420jpeg, C420paldv,
// C420mpeg2), which differ only in chroma siting and all share the I420 memory layout. A missing C tag means
// 4:2:0 by convention.

// MARK: - Types

/// Reads I420 frames from a Y4M file or byte array; used by `srtc join --video file.y4m`.
public final class Y4MReader {
    /// Frame width in pixels.
    public let width: Int
    /// Frame height in pixels.
    public let height: Int
    /// Frame rate as a fraction (frames per second = numerator / denominator); 30/1 when absent.
    public let frameRate: (numerator: Int, denominator: Int)
    /// The header's colour-space tag (e.g. "420jpeg").
    public let colorSpace: String
    /// Frames read so far.
    public private(set) var frameIndex = 0

    private let input: ByteInput
    private let firstFrameOffset: Int
    private let frameBytes: Int

    static let signature = Array("YUV4MPEG2".utf8)
    static let maxHeaderLength = 4_096

    // MARK: - Public API

    /// Opens a Y4M file.
    /// - Throws: `MediaFileError` when the file cannot be opened or its header is invalid.
    public convenience init(path: String) throws {
        try self.init(input: ByteInput(path: path))
    }

    /// Reads Y4M data held in memory.
    public convenience init(bytes: [UInt8]) throws {
        try self.init(input: ByteInput(bytes: bytes))
    }

    private init(input: ByteInput) throws {
        self.input = input
        guard let line = try input.readLine(limit: Self.maxHeaderLength) else { throw MediaFileError.badSignature }
        let fields = line.split(separator: 0x20)
        guard let magic = fields.first, Array(magic) == Self.signature else { throw MediaFileError.badSignature }
        var width: Int?, height: Int?, rate = (numerator: 30, denominator: 1), space = "420jpeg"
        for field in fields.dropFirst() {
            guard let tag = field.first else { continue }
            let value = String(decoding: field.dropFirst(), as: UTF8.self)
            switch tag {
            case UInt8(ascii: "W"): width = Int(value)
            case UInt8(ascii: "H"): height = Int(value)
            case UInt8(ascii: "F"):
                guard let parsed = Self.ratio(value), parsed.numerator > 0, parsed.denominator > 0 else {
                    throw MediaFileError.invalidHeader("F\(value)")
                }
                rate = parsed
            case UInt8(ascii: "C"): space = value
            default: break   // I (interlacing), A (aspect), X (comments) do not change the layout
            }
        }
        guard let width, (1...VideoPixelBuffer.maxDimension).contains(width) else { throw MediaFileError.invalidHeader("W") }
        guard let height, (1...VideoPixelBuffer.maxDimension).contains(height) else { throw MediaFileError.invalidHeader("H") }
        guard ["420", "420jpeg", "420paldv", "420mpeg2"].contains(space) else {
            throw MediaFileError.unsupportedColorSpace(space)
        }
        self.width = width
        self.height = height
        self.frameRate = rate
        self.colorSpace = space
        self.frameBytes = VideoPixelBuffer.byteCount(format: .i420, width: width, height: height)
        self.firstFrameOffset = input.offset
    }

    /// Reads the next frame, stamped `frameIndex / frameRate` seconds after zero.
    /// - Returns: the frame, or nil at the end of the data.
    /// - Throws: `MediaFileError.invalidHeader` for a bad FRAME line, `.truncated` for a partial frame.
    public func readFrame() throws -> VideoFrame? {
        guard let line = try input.readLine(limit: Self.maxHeaderLength) else { return nil }
        guard line.starts(with: Array("FRAME".utf8)), line.count == 5 || line[5] == 0x20 else {
            throw MediaFileError.invalidHeader("FRAME")
        }
        guard let pixels = try input.read(count: frameBytes) else { throw MediaFileError.truncated }
        let timestamp = Int64((Double(frameIndex) * 1e6 * Double(frameRate.denominator) / Double(frameRate.numerator)).rounded())
        frameIndex += 1
        return VideoFrame(buffer: try VideoPixelBuffer(format: .i420, width: width, height: height, data: pixels),
                          timestampUs: timestamp)
    }

    /// Goes back to the first frame (to loop a clip); timestamps restart at zero.
    public func rewind() throws {
        try input.seek(to: firstFrameOffset)
        frameIndex = 0
    }

    // MARK: - Internals

    static func ratio(_ text: String) -> (numerator: Int, denominator: Int)? {
        let parts = text.split(separator: ":")
        guard parts.count == 2, let numerator = Int(parts[0]), let denominator = Int(parts[1]),
              numerator <= 1_000_000, denominator <= 1_000_000 else { return nil }
        return (numerator, denominator)
    }
}
