/// An owned RTP packet (RFC 3550 §5.1): header fields, RFC 8285 extension elements and payload.
///
/// Convenient for building and inspecting packets; the per-packet forwarding path uses
/// `RTPPacketView` / `RTPMutablePacketView` instead.
public struct RTPPacket: Hashable, Sendable {
    // MARK: - Fields

    /// The M bit.
    public var marker: Bool
    /// 7-bit payload type.
    public var payloadType: UInt8
    /// 16-bit sequence number.
    public var sequenceNumber: UInt16
    /// 32-bit media timestamp.
    public var timestamp: UInt32
    /// Synchronization source.
    public var ssrc: UInt32
    /// Contributing sources (at most 15).
    public var csrcs: [UInt32]
    /// The extension profile; nil lets the serializer pick the one-byte form when every element
    /// fits it and the two-byte form otherwise. A one-byte profile whose elements do not fit is
    /// written in the two-byte form.
    public var extensionProfile: RTPExtensionProfile?
    /// RFC 8285 elements (used when the profile is one- or two-byte, or nil).
    public var extensions: [RTPHeaderExtensionElement]
    /// Opaque extension data for any other profile (RFC 3550 §5.3.1); padded to 32 bits on write.
    public var extensionData: [UInt8]
    /// The payload, padding excluded.
    public var payload: [UInt8]
    /// Padding bytes to append, the count byte included; 0 for none (P=0).
    public var paddingLength: UInt8

    // MARK: - Building

    /// Makes a packet from its fields.
    public init(
        marker: Bool = false, payloadType: UInt8, sequenceNumber: UInt16, timestamp: UInt32, ssrc: UInt32,
        csrcs: [UInt32] = [], extensionProfile: RTPExtensionProfile? = nil,
        extensions: [RTPHeaderExtensionElement] = [], extensionData: [UInt8] = [],
        payload: [UInt8] = [], paddingLength: UInt8 = 0
    ) {
        precondition(csrcs.count <= 15, "RTP carries at most 15 CSRCs")
        self.marker = marker
        self.payloadType = payloadType & 0x7F
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.ssrc = ssrc
        self.csrcs = csrcs
        self.extensionProfile = extensionProfile
        self.extensions = extensions
        self.extensionData = extensionData
        self.payload = payload
        self.paddingLength = paddingLength
    }

    /// Copies a validated view into an owned packet: one allocation for the payload, one for the
    /// element list (values up to 16 bytes are stored inline), one for CSRCs when present.
    public init(_ view: RTPPacketView) {
        var csrcs: [UInt32] = []
        if view.csrcCount > 0 {
            csrcs.reserveCapacity(view.csrcCount)
            for index in 0 ..< view.csrcCount { csrcs.append(view.csrc(at: index)) }
        }
        let profile = view.extensionProfile
        var elements: [RTPHeaderExtensionElement] = []
        if profile?.hasElements == true {
            var count = 0
            for _ in view.extensionElements { count += 1 }
            if count > 0 {
                elements.reserveCapacity(count)
                for element in view.extensionElements {
                    elements.append(RTPHeaderExtensionElement(
                        id: element.id, bytes: UnsafeRawBufferPointer(rebasing: view.bytes[element.valueRange])))
                }
            }
        }
        self.init(
            marker: view.marker, payloadType: view.payloadType, sequenceNumber: view.sequenceNumber,
            timestamp: view.timestamp, ssrc: view.ssrc, csrcs: csrcs, extensionProfile: profile,
            extensions: elements,
            extensionData: profile.map { $0.hasElements ? [] : view.bytes.copyBytes(view.extensionDataRange) } ?? [],
            payload: view.bytes.copyBytes(view.payloadRange), paddingLength: UInt8(view.paddingLength))
    }

    /// Parses one RTP packet.
    public init(parsing bytes: UnsafeRawBufferPointer) throws(RTPError) {
        self.init(try RTPPacketView(bytes))
    }

    /// Parses one RTP packet.
    public init(parsing bytes: [UInt8]) throws(RTPError) {
        self = try withRawBytes(bytes) { (raw) throws(RTPError) in try RTPPacket(parsing: raw) }
    }

    // MARK: - Extension elements

    /// The value of the first element with `id`.
    public func extensionValue(id: UInt8) -> [UInt8]? {
        extensions.first { $0.id == id }?.value
    }



    /// Sets (replacing) or adds the element `id`.
    public mutating func setExtension(id: UInt8, value: [UInt8]) {
        let element = RTPHeaderExtensionElement(id: id, value: value)
        if let index = extensions.firstIndex(where: { $0.id == id }) {
            extensions[index] = element
        } else {
            extensions.append(element)
        }
    }

    /// Removes every element with `id`.
    public mutating func removeExtension(id: UInt8) {
        extensions.removeAll { $0.id == id }
    }
}
