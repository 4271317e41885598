/// One datagram of the network speed test (docs/speed-test.md), exchanged between the SDK and
/// the server's media port.
///
/// The first byte is 0x0C: RFC 9443 §3 leaves first bytes 4–15 unassigned (STUN is 0–3, ZRTP
/// 16–19, DTLS 20–63, TURN channels 64–79, QUIC 80–127 and 192–255, RTP/RTCP 128–191), so the
/// media port tells these datagrams apart from WebRTC traffic by that byte alone.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |  marker=0x0C  |   version=1   |     kind      |  reserved=0   |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                     session id (64 bits)                      |
/// |                                                               |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                       sequence number                         |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |          send time, sender's clock, microseconds (64 bits)    |
/// |                                                               |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                  body (by kind), then zero padding            |
/// ```
public struct SpeedTestPacket: Sendable, Equatable {
    // MARK: - Types

    /// What a datagram is; its body follows from it.
    public enum Kind: UInt8, Sendable, CaseIterable {
        /// Client → server: opens a session with a token. Padded to `minimumHelloSize`.
        case hello = 1
        /// Server → client: the session id and the server's limits.
        case welcome = 2
        /// Server → client: an authenticated hello was refused (code: `APIErrorCode`).
        case reject = 3
        /// Client → server: a probe answered with a pong of the same size.
        case ping = 4
        /// Server → client: the answer to a ping.
        case pong = 5
        /// Client → server: uplink load, counted and never answered.
        case data = 6
        /// Client → server: asks the server to send downlink load.
        case downlinkStart = 7
        /// Server → client: downlink load.
        case downlinkData = 8
        /// Client → server: asks for the server's uplink counters.
        case reportRequest = 9
        /// Server → client: the uplink counters.
        case report = 10
        /// Client → server: ends the session.
        case bye = 11
        /// Client → server, over the WebSocket carrier only: send `count` downlink datagrams now.
        case downlinkPull = 12
    }

    /// The kind-specific fields.
    public enum Body: Sendable, Equatable {
        case none
        case hello(token: String)
        case welcome(SpeedTestLimits)
        case reject(code: UInt32)
        /// `echoedTimestamp` is the ping's send time; `pingsReceived` counts this session's pings so far.
        case pong(echoedTimestamp: UInt64, pingsReceived: UInt32)
        case downlinkStart(bitrate: UInt32, durationMs: UInt32, packetSize: UInt16)
        case downlinkPull(packetSize: UInt16, count: UInt16)
        case report(SpeedTestReport)
    }

    // MARK: - Constants

    /// The first byte of every speed-test datagram.
    public static let marker: UInt8 = 0x0C
    public static let version: UInt8 = 1
    public static let headerSize = 24
    /// A hello is at least this long, so the (36-byte) welcome or (28-byte) reject answering it
    /// never amplifies traffic towards a spoofed source address.
    public static let minimumHelloSize = 256
    /// The largest datagram either side sends or accepts (fits a 1500-byte MTU over IPv6).
    public static let maximumSize = 1400

    // MARK: - Fields

    public var kind: Kind
    public var session: UInt64
    public var sequence: UInt32
    /// Microseconds on the sender's monotonic clock (only differences mean anything).
    public var timestampMicros: UInt64
    public var body: Body
    /// The datagram's length: the fields above, then zero padding up to it.
    public var size: Int

    /// - Parameter size: the datagram length; raised to the minimum the kind needs.
    public init(kind: Kind, session: UInt64 = 0, sequence: UInt32 = 0, timestampMicros: UInt64 = 0,
                body: Body = .none, size: Int = 0) {
        self.kind = kind
        self.session = session
        self.sequence = sequence
        self.timestampMicros = timestampMicros
        self.body = body
        self.size = max(size, Self.headerSize + Self.bodySize(body))
    }

    /// `true` when the first byte marks a speed-test datagram.
    @inline(__always)
    public static func isSpeedTest(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.first == marker
    }

    // MARK: - Parsing

    /// Parses a datagram; never reads past its end. Padding after the body is ignored.
    public init(parsing bytes: UnsafeRawBufferPointer) throws(SpeedTestPacketError) {
        guard bytes.count >= Self.headerSize else { throw .tooShort }
        guard bytes.count <= Self.maximumSize else { throw .tooLong }
        guard bytes[0] == Self.marker else { throw .notSpeedTest }
        guard bytes[1] == Self.version else { throw .unsupportedVersion(bytes[1]) }
        guard let kind = Kind(rawValue: bytes[2]) else { throw .unknownKind(bytes[2]) }
        self.kind = kind
        session = bytes.u64(4)
        sequence = bytes.u32(12)
        timestampMicros = bytes.u64(16)
        size = bytes.count
        let b = UnsafeRawBufferPointer(rebasing: bytes[Self.headerSize...])
        switch kind {
        case .hello:
            guard b.count >= 2 else { throw .tooShort }
            let length = Int(b.u16(0))
            guard length <= b.count - 2 else { throw .tokenOverrun }
            let token = UnsafeRawBufferPointer(rebasing: b[2 ..< 2 + length])
            // A token is a JWT: base64url parts and dots, printable ASCII.
            guard token.allSatisfy({ $0 > 0x20 && $0 < 0x7f }) else { throw .invalidToken }
            body = .hello(token: String(decoding: token, as: UTF8.self))
        case .welcome:
            guard b.count >= 12 else { throw .tooShort }
            body = .welcome(SpeedTestLimits(maxUplinkBitrate: b.u32(0), maxDownlinkBitrate: b.u32(4), maxDurationMs: b.u32(8)))
        case .reject:
            guard b.count >= 4 else { throw .tooShort }
            body = .reject(code: b.u32(0))
        case .pong:
            guard b.count >= 12 else { throw .tooShort }
            body = .pong(echoedTimestamp: b.u64(0), pingsReceived: b.u32(8))
        case .downlinkStart:
            guard b.count >= 10 else { throw .tooShort }
            body = .downlinkStart(bitrate: b.u32(0), durationMs: b.u32(4), packetSize: b.u16(8))
        case .downlinkPull:
            guard b.count >= 4 else { throw .tooShort }
            body = .downlinkPull(packetSize: b.u16(0), count: b.u16(2))
        case .report:
            guard b.count >= SpeedTestReport.size else { throw .tooShort }
            body = .report(SpeedTestReport(parsing: b))
        case .ping, .data, .downlinkData, .reportRequest, .bye:
            body = .none
        }
    }

    /// Parses a datagram held in an array.
    public init(bytes: [UInt8]) throws(SpeedTestPacketError) {
        self = try withRawBytes(bytes) { raw throws(SpeedTestPacketError) in try SpeedTestPacket(parsing: raw) }
    }

    // MARK: - Serializing

    /// Writes the datagram (`size` bytes, zero-padded) and returns its length; 0 when `buffer` is
    /// too small or `size` exceeds `maximumSize`.
    @discardableResult
    public func serialize(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard size <= Self.maximumSize, buffer.count >= size, size >= Self.headerSize + Self.bodySize(body) else { return 0 }
        var out = ByteWriter(buffer)
        out.u8(Self.marker)
        out.u8(Self.version)
        out.u8(kind.rawValue)
        out.u8(0)
        out.u64(session)
        out.u32(sequence)
        out.u64(timestampMicros)
        switch body {
        case .none: break
        case .hello(let token):
            let utf8 = Array(token.utf8)
            out.u16(UInt16(utf8.count))
            out.bytes(utf8)
        case .welcome(let limits):
            out.u32(limits.maxUplinkBitrate)
            out.u32(limits.maxDownlinkBitrate)
            out.u32(limits.maxDurationMs)
        case .reject(let code): out.u32(code)
        case .pong(let echoed, let count):
            out.u64(echoed)
            out.u32(count)
        case .downlinkStart(let bitrate, let duration, let packetSize):
            out.u32(bitrate)
            out.u32(duration)
            out.u16(packetSize)
        case .downlinkPull(let packetSize, let count):
            out.u16(packetSize)
            out.u16(count)
        case .report(let report): report.write(into: &out)
        }
        out.zeros(size - out.offset)
        return out.offset
    }

    /// The datagram as bytes (tests and control packets; the load path writes into send slots).
    public var bytes: [UInt8] {
        makeBytes(size: min(size, Self.maximumSize)) { serialize(into: $0) }
    }

    static func bodySize(_ body: Body) -> Int {
        switch body {
        case .none: 0
        case .hello(let token): 2 + token.utf8.count
        case .welcome: 12
        case .reject: 4
        case .pong: 12
        case .downlinkStart: 10
        case .downlinkPull: 4
        case .report: SpeedTestReport.size
        }
    }
}

/// What the server allows one session (sent in the welcome).
public struct SpeedTestLimits: Sendable, Equatable {
    /// Bits per second of uplink load the server counts; more is dropped uncounted.
    public var maxUplinkBitrate: UInt32
    /// Bits per second of downlink load the server sends at most.
    public var maxDownlinkBitrate: UInt32
    /// How long a session may last, in milliseconds.
    public var maxDurationMs: UInt32

    public init(maxUplinkBitrate: UInt32, maxDownlinkBitrate: UInt32, maxDurationMs: UInt32) {
        self.maxUplinkBitrate = maxUplinkBitrate
        self.maxDownlinkBitrate = maxDownlinkBitrate
        self.maxDurationMs = maxDurationMs
    }
}

/// Why bytes are not a speed-test datagram.
public enum SpeedTestPacketError: Error, Sendable, Equatable {
    /// Shorter than the header or than the kind's body.
    case tooShort
    /// Longer than `SpeedTestPacket.maximumSize`.
    case tooLong
    /// The first byte is not 0x0C.
    case notSpeedTest
    /// The version byte is not 1.
    case unsupportedVersion(UInt8)
    /// The kind byte names no kind.
    case unknownKind(UInt8)
    /// A hello's token length runs past the datagram.
    case tokenOverrun
    /// A hello's token holds bytes other than printable ASCII.
    case invalidToken
}
