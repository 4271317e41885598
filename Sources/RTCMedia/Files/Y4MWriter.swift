// Writes YUV4MPEG2 (".y4m") video: the recording format of `srtc join --record`, readable by ffmpeg,
// mpv and our own `Y4MReader`. Frames are written as I420 (C420jpeg), converted when needed.

// MARK: - Types

/// Writes I420 frames to a Y4M file or to memory.
public final class Y4MWriter {
    /// Frame width in pixels.
    public let width: Int
    /// Frame height in pixels.
    public let height: Int
    /// Frames written so far.
    public private(set) var frameCount = 0
    private let output: ByteOutput

    // MARK: - Public API

    /// Creates a Y4M file and writes its header.
    /// - Parameters:
    ///   - path: file to create (replaced if it exists).
    ///   - width: frame width; every frame must match.
    ///   - height: frame height; every frame must match.
    ///   - frameRate: frames per second for the header, 30 by default.
    public convenience init(path: String, width: Int, height: Int, frameRate: Int = 30) throws {
        try self.init(output: ByteOutput(path: path), width: width, height: height, frameRate: frameRate)
    }

    /// Writes Y4M into memory; read the result from `bytes`.
    public convenience init(width: Int, height: Int, frameRate: Int = 30) throws {
        try self.init(output: ByteOutput(), width: width, height: height, frameRate: frameRate)
    }

    private init(output: ByteOutput, width: Int, height: Int, frameRate: Int) throws {
        try VideoPixelBuffer.checkDimensions(width: width, height: height)
        guard frameRate > 0 else { throw MediaFileError.invalidHeader("F") }
        self.output = output
        self.width = width
        self.height = height
        try output.write(Array("YUV4MPEG2 W\(width) H\(height) F\(frameRate):1 Ip A1:1 C420jpeg\n".utf8))
    }

    /// Appends one frame (converted to I420 when it is NV12 or BGRA).
    /// - Throws: `MediaFileError.formatMismatch` when its size differs from the header's.
    public func write(_ frame: VideoFrame) throws {
        guard frame.width == width, frame.height == height else { throw MediaFileError.formatMismatch }
        try output.write(Array("FRAME\n".utf8))
        try frame.buffer.toI420().data.withUnsafeBytes { try output.write($0) }
        frameCount += 1
    }

    /// Everything written so far, for a writer created in memory (empty for a file).
    public var bytes: [UInt8] { output.bytes }

    /// Flushes and closes the file; later writes throw `MediaFileError.closed`.
    public func close() throws { try output.close() }
}
