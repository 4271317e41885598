/// RFC 6464 §3 client-to-mixer audio level: one byte, a voice-activity bit and a 7-bit level
/// in -dBov (0 is loudest, 127 is silence).
public struct AudioLevelExtension: Hashable, Sendable {
    /// The V bit: the sender's voice activity detector heard speech.
    public var voiceActivity: Bool
    /// Level in -dBov, 0…127.
    public var level: UInt8

    /// Value size in bytes.
    public static let size = 1

    /// - Precondition: `level` is at most 127.
    public init(voiceActivity: Bool, level: UInt8) {
        precondition(level <= 127, "RFC 6464 audio level is 7 bits")
        self.voiceActivity = voiceActivity
        self.level = level
    }

    /// Reads an element's value (RFC 6464 §3 allows it to be padded past its first byte).
    public init(parsing value: UnsafeRawBufferPointer) throws(RTPError) {
        guard let byte = value.first else { throw .invalidExtensionValue }
        self.voiceActivity = byte & 0x80 != 0
        self.level = byte & 0x7F
    }

    /// Reads an element's value.
    public init(parsing value: [UInt8]) throws(RTPError) {
        self = try withRawBytes(value) { (raw) throws(RTPError) in try AudioLevelExtension(parsing: raw) }
    }

    /// The one-byte wire value.
    public var byte: UInt8 { (voiceActivity ? 0x80 : 0) | level }

    /// The value's bytes.
    public func serialize() -> [UInt8] { [byte] }
}
