// The local stream between a screen-broadcast extension (iOS ReplayKit's Broadcast Upload
// Extension, a separate process) and its host app: the extension hands over the screen's frames
// and the apps' audio, the host tells it to stop. Documented in docs/sdk-srtc.md ("Screen
// broadcast"). All integers big-endian, samples little-endian as in memory on every platform
// the SDK runs on.
//
//   message  = length:u32 type:u8 body          (length counts type and body)
//   hello    = 1  version:u8                    (extension → host, first)
//   video    = 2  width:u16 height:u16 rotation:u16 timestampUs:i64 I420 planes (exact size)
//   appAudio = 3  sampleRate:u32 channels:u8 timestampUs:i64 samples:i16 LE (whole frames)
//   stop     = 4                                (host → extension: end the broadcast)
//   finished = 5                                (extension → host: the user ended it)

/// One message of the broadcast stream.
public enum BroadcastMessage: Sendable, Equatable {
    case hello(version: UInt8)
    case video(VideoFrame)
    case appAudio(AudioPCMBuffer)
    case stop
    case finished

    /// Why bytes are not a broadcast message.
    public enum ParseError: Error, Equatable {
        /// A length above `maxLength` or below one byte.
        case badLength(Int)
        case unknownType(UInt8)
        /// A body that does not fit its type (sizes, rotation, rate, channels).
        case malformed(String)
    }

    /// The protocol version of this SDK.
    public static let version: UInt8 = 1
    /// The largest message (type and body): a 4096×2304 I420 picture and its header.
    public static let maxLength = 16 << 20

    // MARK: - Public API

    /// Appends this message, framed, to `output` (reused by the caller, so no allocation once it
    /// is large enough). Video is sent as I420, other formats converted first; audio as 16-bit.
    public func encode(into output: inout [UInt8]) {
        let start = output.count
        output.append(contentsOf: [0, 0, 0, 0])
        switch self {
        case .hello(let version):
            output.append(1)
            output.append(version)
        case .video(let frame):
            let picture = frame.buffer.toI420()
            output.append(2)
            Self.put(UInt64(picture.width), bytes: 2, into: &output)
            Self.put(UInt64(picture.height), bytes: 2, into: &output)
            Self.put(UInt64(frame.rotation.rawValue), bytes: 2, into: &output)
            Self.put(UInt64(bitPattern: frame.timestampUs), bytes: 8, into: &output)
            output.append(contentsOf: picture.data)
        case .appAudio(let audio):
            output.append(3)
            Self.put(UInt64(audio.sampleRate), bytes: 4, into: &output)
            output.append(UInt8(audio.channels))
            Self.put(UInt64(bitPattern: audio.timestampUs ?? 0), bytes: 8, into: &output)
            for sample in audio.int16Samples {
                let bits = UInt16(bitPattern: sample)
                output.append(UInt8(truncatingIfNeeded: bits))
                output.append(UInt8(truncatingIfNeeded: bits >> 8))
            }
        case .stop:
            output.append(4)
        case .finished:
            output.append(5)
        }
        let length = UInt32(output.count - start - 4)
        for i in 0..<4 { output[start + i] = UInt8(truncatingIfNeeded: length >> (24 - 8 * i)) }
    }

    /// Parses one message from its type and body (`length` bytes after the length field).
    /// - Throws: `ParseError` for anything that is not a well-formed message.
    public init(body: ArraySlice<UInt8>) throws(ParseError) {
        guard let type = body.first else { throw .badLength(0) }
        var reader = Reader(bytes: body.dropFirst())
        switch type {
        case 1:
            self = .hello(version: try reader.integer(1, "hello"))
            guard reader.rest.isEmpty else { throw .malformed("a body after the hello's version") }
        case 2:
            let width = Int(try reader.integer(2, "width") as UInt16), height = Int(try reader.integer(2, "height") as UInt16)
            guard let rotation = VideoRotation(rawValue: Int(try reader.integer(2, "rotation") as UInt16)) else {
                throw .malformed("rotation")
            }
            let time = Int64(bitPattern: try reader.integer(8, "timestamp"))
            guard let picture = try? VideoPixelBuffer(format: .i420, width: width, height: height, data: Array(reader.rest)) else {
                throw .malformed("picture \(width)x\(height) in \(reader.rest.count) bytes")
            }
            self = .video(VideoFrame(buffer: picture, timestampUs: time, rotation: rotation))
        case 3:
            let rate = Int(try reader.integer(4, "sample rate") as UInt32), channels = Int(try reader.integer(1, "channels") as UInt8)
            let time = Int64(bitPattern: try reader.integer(8, "timestamp"))
            let bytes = reader.rest
            guard (8_000...192_000).contains(rate), (1...8).contains(channels), bytes.count % (2 * channels) == 0 else {
                throw .malformed("audio \(rate) Hz, \(channels) channels, \(bytes.count) bytes")
            }
            var samples = [Int16](repeating: 0, count: bytes.count / 2)
            var index = bytes.startIndex
            for i in samples.indices {
                samples[i] = Int16(bitPattern: UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8)
                index += 2
            }
            self = .appAudio(AudioPCMBuffer(int16: samples, sampleRate: rate, channels: channels, timestampUs: time))
        case 4, 5:
            guard body.count == 1 else { throw .malformed("a body after type \(type)") }
            self = type == 4 ? .stop : .finished
        default:
            throw .unknownType(type)
        }
    }

    // MARK: - Internals

    private static func put(_ value: UInt64, bytes: Int, into output: inout [UInt8]) {
        for i in stride(from: bytes - 1, through: 0, by: -1) { output.append(UInt8(truncatingIfNeeded: value >> (8 * i))) }
    }

    /// Big-endian fields off the front of a body.
    private struct Reader {
        var bytes: ArraySlice<UInt8>

        var rest: ArraySlice<UInt8> { bytes }

        mutating func integer<T: FixedWidthInteger>(_ size: Int, _ field: String) throws(ParseError) -> T {
            guard bytes.count >= size else { throw .malformed("\(field) cut short") }
            var value: T = 0
            for byte in bytes.prefix(size) { value = value << 8 | T(byte) }
            bytes = bytes.dropFirst(size)
            return value
        }
    }
}
