/// `a=simulcast` (RFC 8853 §5.1): the RTP streams (by rid) sent and received in a section.
///
/// `send 1;2,3` means two streams: rid `1`, and a second one that is rid `2` or its alternative
/// `3`. A `~` before a rid marks it paused.
public struct Simulcast: Hashable, Sendable, CustomStringConvertible {
    /// One rid in a simulcast list.
    public struct Stream: Hashable, Sendable {
        public var rid: String
        public var paused: Bool

        public init(rid: String, paused: Bool = false) {
            self.rid = rid
            self.paused = paused
        }
    }

    /// Streams sent: outer list = streams, inner list = alternatives for one stream.
    public var send: [[Stream]]
    /// Streams received.
    public var receive: [[Stream]]

    public init(send: [[Stream]] = [], receive: [[Stream]] = []) {
        self.send = send
        self.receive = receive
    }

    /// A send list with one rid per stream (the usual form).
    public init(sendRIDs: [String]) {
        self.init(send: sendRIDs.map { [Stream(rid: $0)] })
    }

    /// Rids of the first alternative of each sent stream.
    public var sendRIDs: [String] { send.compactMap { $0.first?.rid } }
    /// Rids of the first alternative of each received stream.
    public var receiveRIDs: [String] { receive.compactMap { $0.first?.rid } }

    /// The view from the other side: what is sent becomes received (RFC 8853 §5.3).
    public var reversed: Simulcast { Simulcast(send: receive, receive: send) }

    static func parse(_ text: Substring) -> Simulcast? {
        let parts = SDPScanner.fields(text)
        guard parts.count == 2 || parts.count == 4 else { return nil }
        var result = Simulcast()
        var seen: Set<Substring> = []
        for index in stride(from: 0, to: parts.count, by: 2) {
            let direction = parts[index]
            guard seen.insert(direction).inserted, let list = parseList(parts[index + 1]) else { return nil }
            switch direction {
            case "send": result.send = list
            case "recv": result.receive = list
            default: return nil
            }
        }
        return result
    }

    private static func parseList(_ text: Substring) -> [[Stream]]? {
        var streams: [[Stream]] = []
        for streamText in text.split(separator: ";", omittingEmptySubsequences: false) {
            var alternatives: [Stream] = []
            for id in streamText.split(separator: ",", omittingEmptySubsequences: false) {
                let paused = id.first == "~"
                let rid = paused ? id.dropFirst() : id
                guard RID.isValidID(rid) else { return nil }
                alternatives.append(Stream(rid: String(rid), paused: paused))
            }
            streams.append(alternatives)
        }
        return streams
    }

    private static func format(_ list: [[Stream]]) -> String {
        list.map { $0.map { ($0.paused ? "~" : "") + $0.rid }.joined(separator: ",") }.joined(separator: ";")
    }

    public var description: String {
        var parts: [String] = []
        if !send.isEmpty { parts.append("send " + Self.format(send)) }
        if !receive.isEmpty { parts.append("recv " + Self.format(receive)) }
        return parts.joined(separator: " ")
    }
}

/// `a=rid:<id> send|recv [pt=<fmt>,…;<restriction>=<value>;…]` (RFC 8851 §10).
public struct RID: Hashable, Sendable, CustomStringConvertible {
    /// Direction of a rid line.
    public enum Direction: String, Hashable, Sendable {
        case send, recv

        /// The other side's view.
        public var reversed: Direction { self == .send ? .recv : .send }
    }

    /// The RTP stream id, also carried in the `rid` header extension.
    public var id: String
    public var direction: Direction
    /// Payload types allowed for the stream (`pt=`); empty for any.
    public var payloadTypes: [UInt8]
    /// Other restrictions in order (`max-width=1280`, `max-fps=30`, …).
    public var restrictions: [SDPAttribute]

    public init(id: String, direction: Direction, payloadTypes: [UInt8] = [], restrictions: [SDPAttribute] = []) {
        self.id = id
        self.direction = direction
        self.payloadTypes = payloadTypes
        self.restrictions = restrictions
    }

    /// RFC 8851 §10: rid-id = 1*(alpha-numeric / "-" / "_").
    static func isValidID(_ text: Substring) -> Bool {
        text.utf8.count <= 255 && SDPScanner.isAlphanumeric(text, extra: "-_")
    }

    static func parse(_ text: Substring) -> RID? {
        let parts = SDPScanner.fields(text)
        guard (2 ... 3).contains(parts.count), isValidID(parts[0]),
              let direction = Direction(rawValue: String(parts[1])) else { return nil }
        var rid = RID(id: String(parts[0]), direction: direction)
        guard parts.count == 3 else { return rid }
        var sawPayloadTypes = false
        for item in parts[2].split(separator: ";", omittingEmptySubsequences: false) {
            let (key, value) = SDPScanner.splitOnce(item, "=")
            guard SDPScanner.isToken(key) else { return nil }
            if key == "pt", !sawPayloadTypes {
                guard let value else { return nil }
                var types: [UInt8] = []
                for entry in value.split(separator: ",", omittingEmptySubsequences: false) {
                    guard let type = SDPScanner.number(entry, as: UInt8.self), type <= 127 else { return nil }
                    types.append(type)
                }
                rid.payloadTypes = types
                sawPayloadTypes = true
            } else {
                if let value, value.contains(where: { $0 == ";" }) { return nil }
                rid.restrictions.append(SDPAttribute(name: String(key), value: value.map(String.init)))
            }
        }
        return rid
    }

    public var description: String {
        var params: [String] = []
        if !payloadTypes.isEmpty { params.append("pt=" + payloadTypes.map(String.init).joined(separator: ",")) }
        params += restrictions.map { restriction in restriction.value.map { "\(restriction.name)=\($0)" } ?? restriction.name }
        return "\(id) \(direction.rawValue)" + (params.isEmpty ? "" : " " + params.joined(separator: ";"))
    }
}
