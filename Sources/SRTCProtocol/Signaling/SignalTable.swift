/// The signaling wire's types as a table (docs/protocol.md): each row writes a `type` once, with
/// the message case it names (the case's constructor, whose argument is the type's `data`) and,
/// for a request, what its response carries. `SignalCodec` reads and writes both directions from
/// the rows, so adding a message is adding a row.
struct SignalTable<Message: Equatable & Sendable>: Sendable {
    let rows: [SignalRow<Message>]
    private let byType: [String: Int]

    init(_ rows: [SignalRow<Message>]) {
        self.rows = rows
        byType = Dictionary(rows.enumerated().map { ($1.type, $0) }, uniquingKeysWith: { first, _ in
            preconditionFailure("a signaling type is in its table twice")
        })
    }

    /// The row of a wire `type`, nil for a type this version does not know.
    func row(_ type: String) -> SignalRow<Message>? {
        byType[type].map { rows[$0] }
    }

    /// The row of `message` and its `data` (nil: the type has none).
    ///
    /// Reflection hands over the case's argument; the row is then the one whose constructor
    /// rebuilds `message` from it, so cases that share a payload type (`subscribe` and
    /// `set_layer`, `user_joined` and `me_updated`) are told apart by value, not by their
    /// Swift names. Signaling messages are rare (not per packet), so the scan and the
    /// comparisons cost nothing that matters.
    func wire(_ message: Message) -> (type: String, data: (any Encodable)?) {
        let argument = Mirror(reflecting: message).children.first?.value
        for row in rows {
            if let match = row.match(message, argument) { return (row.type, match.data) }
        }
        // SignalGoldenTests and SignalCodecTests encode a sample of every case.
        preconditionFailure("\(message) has no row in its signaling table")
    }

    /// Every `type` of the table, in its order.
    var types: [String] { rows.map(\.type) }
}

/// One `type` of the wire and the message case it names.
struct SignalRow<Message: Equatable & Sendable>: Sendable {
    /// The `data` of a message of this row (nil: none, as `leave` and `ping`).
    struct Match { let data: (any Encodable)? }

    let type: String
    /// Builds the message from the `data` of a message of this type.
    let decode: @Sendable (PayloadReader) throws -> Message
    /// The `data` of `message` when `message` is this row's case (`argument` is the case's
    /// argument, by reflection); nil when it is another case.
    let match: @Sendable (_ message: Message, _ argument: Any?) -> Match?
    /// What a successful response to this type carries (requests only).
    let answer: SignalAnswer

    /// A case with `data`: `SignalRow("join", Body.join)`; the payload type is the case's argument.
    init<Payload: Codable & Sendable>(_ type: String, _ make: @escaping @Sendable (Payload) -> Message, answer: SignalAnswer = .nothing) {
        self.type = type
        self.answer = answer
        decode = { data in make(try data(Payload.self)) }
        match = { message, argument in
            guard let payload = argument as? Payload, make(payload) == message else { return nil }
            return Match(data: payload)
        }
    }

    /// A case without `data`: `SignalRow("leave", Body.leave)`.
    init(_ type: String, _ value: Message, answer: SignalAnswer = .nothing) {
        self.type = type
        self.answer = answer
        decode = { _ in value }
        match = { message, _ in message == value ? Match(data: nil) : nil }
    }
}

/// What a successful response to a request carries in `data`: nothing, always a payload (`join`,
/// `ping`), or a payload when there is one (`publish`, `unpublish` and `restart_ice`, which
/// answer an offer only when they carried one).
struct SignalAnswer: Sendable {
    let read: @Sendable (PayloadReader) throws -> ResponseData

    static let nothing = SignalAnswer { _ in .empty }

    static func always<Payload: Decodable>(_ make: @escaping @Sendable (Payload) -> ResponseData) -> SignalAnswer {
        SignalAnswer { data in make(try data(Payload.self)) }
    }

    static func ifPresent<Payload: Decodable>(_ make: @escaping @Sendable (Payload) -> ResponseData) -> SignalAnswer {
        SignalAnswer { data in data.isPresent ? make(try data(Payload.self)) : .empty }
    }
}
