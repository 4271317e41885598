/// abs-capture-time (webrtc.org, `http://www.webrtc.org/experiments/rtp-hdrext/abs-capture-time`):
/// the NTP time (RFC 5905 64-bit, 32.32 fixed point) at which the packet's media was captured,
/// optionally followed by the sender's estimated clock offset to the capturer (signed 32.32).
/// Unlike abs-send-time it is written once by the originator and forwarded unchanged by SFUs and
/// mixers, so a receiver several hops away still sees the origin's time.
public struct AbsCaptureTimeExtension: Hashable, Sendable {
    /// The capture time as a 64-bit NTP timestamp.
    public var captureTime: UInt64
    /// The estimated capture clock offset (signed 32.32 seconds), when sent.
    public var clockOffset: Int64?

    /// Value size without the offset (the short form).
    public static let shortSize = 8
    /// Value size with the offset.
    public static let longSize = 16

    public init(captureTime: UInt64, clockOffset: Int64? = nil) {
        self.captureTime = captureTime
        self.clockOffset = clockOffset
    }

    /// Reads an element's 8- or 16-byte value.
    public init(parsing value: UnsafeRawBufferPointer) throws(RTPError) {
        guard value.count == Self.shortSize || value.count == Self.longSize else { throw .invalidExtensionValue }
        captureTime = value.u64(0)
        clockOffset = value.count == Self.longSize ? Int64(bitPattern: value.u64(8)) : nil
    }

    /// Reads an element's value held in an array.
    public init(parsing value: [UInt8]) throws(RTPError) {
        self = try withRawBytes(value) { (raw) throws(RTPError) in try AbsCaptureTimeExtension(parsing: raw) }
    }

    /// Bytes of the value: 8, or 16 with the offset.
    public var size: Int { clockOffset == nil ? Self.shortSize : Self.longSize }

    /// Writes the value at the start of `buffer` and returns its size.
    /// - Precondition: `buffer.count >= size`.
    @discardableResult
    public func write(to buffer: UnsafeMutableRawBufferPointer) -> Int {
        precondition(buffer.count >= size, "abs-capture-time does not fit")
        buffer.put64(captureTime, at: 0)
        if let clockOffset { buffer.put64(UInt64(bitPattern: clockOffset), at: 8) }
        return size
    }

    /// The value's bytes.
    public func serialize() -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: size)
        bytes.withUnsafeMutableBytes { _ = write(to: $0) }
        return bytes
    }
}
