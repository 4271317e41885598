// libFuzzer target: SDP text. A parsed description must serialize to text that parses back
// equal, and answering it must give a description that also round-trips.
import RTCWire

let transport = TransportParameters(
    iceUfrag: "fuzz", icePwd: "fuzzpasswordfuzzpassword", fingerprint: Fingerprint(bytes: Array(repeating: 7, count: 32)),
    setup: .passive, candidates: [Candidate(foundation: "1", priority: 1, address: "127.0.0.1", port: 7881)],
    endOfCandidates: true)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSDP(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let parsed = try? SessionDescription(parsing: text) else { return 0 }
    guard let again = try? SessionDescription(parsing: parsed.serialize()) else {
        preconditionFailure("serialized description does not parse")
    }
    precondition(again == parsed, "round trip changed the description")

    let answer = parsed.answer(AnswerOptions(transport: transport, iceLite: true, sessionID: "1"))
    guard let reparsedAnswer = try? SessionDescription(parsing: answer.serialize()) else {
        preconditionFailure("answer does not parse")
    }
    precondition(reparsedAnswer == answer, "answer round trip changed it")
    for section in parsed.media {
        for codec in section.codecs { _ = codec.parameters; _ = codec.associatedPayloadType }
        _ = section.ssrcList
    }
    return 0
}
