import RTCMedia

/// The X Window Dump format Xvfb keeps its framebuffer in (X11/XWDFile.h): a header of 32-bit
/// big-endian fields, the window name, `ncolors` 12-byte colour entries, then the pixels.
public enum XWDImage {
    public enum ParseError: Error {
        case tooShort
        case unsupported(String)
    }

    /// The pixels of a 24/32-bit ZPixmap dump, least significant byte first (what Xvfb writes
    /// on little-endian machines), as BGRA.
    public static func parse(_ bytes: [UInt8]) throws -> VideoPixelBuffer {
        guard bytes.count >= 100 else { throw ParseError.tooShort }
        func field(_ index: Int) -> Int {
            bytes[(4 * index)..<(4 * index + 4)].reduce(0) { $0 << 8 | Int($1) }
        }
        // header_size 0, pixmap_format 2, width 4, height 5, byte_order 7, bits_per_pixel 11,
        // bytes_per_line 12, ncolors 19.
        let (headerSize, format, width, height) = (field(0), field(2), field(4), field(5))
        let (byteOrder, bitsPerPixel, bytesPerLine, colours) = (field(7), field(11), field(12), field(19))
        guard format == 2, bitsPerPixel == 32, byteOrder == 0 else {
            throw ParseError.unsupported("format \(format), \(bitsPerPixel) bits, byte order \(byteOrder)")
        }
        let offset = headerSize + colours * 12
        guard width > 0, height > 0, bytesPerLine >= width * 4, bytes.count >= offset + bytesPerLine * height else {
            throw ParseError.tooShort
        }
        return try bytes.withUnsafeBytes { raw in
            try VideoPixelBuffer(format: .bgra, width: width, height: height, copyingPlanes: [raw.baseAddress! + offset],
                                 strides: [bytesPerLine])
        }
    }
}
