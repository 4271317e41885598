import Foundation
import SRTCProtocol

/// Encodes and decodes the worker conversation's lines: `{"type": "...", ...}` JSON objects,
/// snake_case keys, one per line. A line that does not decode is an error for the reader to
/// count and skip; nothing in it can stop either side.
public enum WorkerCodec {
    /// Longest line either side accepts.
    public static let maxLineBytes = 64 * 1024

    /// Why a line was refused.
    public enum DecodeError: Error, Sendable, Equatable {
        /// Not JSON, too long, or no `type`.
        case malformed
        /// A `type` this side does not know.
        case unknownType(String)
        /// The fields of a known type are missing or wrong.
        case invalidData(String)
    }

    private static let encoder: JSONEncoder = {
        let e = JSONEncoder()
        e.keyEncodingStrategy = .convertToSnakeCase
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return e
    }()

    private static let decoder: JSONDecoder = {
        let d = JSONDecoder()
        d.keyDecodingStrategy = .convertFromSnakeCase
        return d
    }()

    // MARK: - Task

    /// The task line.
    public static func line(_ task: WorkerTask) -> String { encode(Envelope(type: "task", task: task)) }

    public static func task(from line: String) throws(DecodeError) -> WorkerTask {
        let envelope = try decodeEnvelope(line)
        guard envelope.type == "task" else { throw .unknownType(envelope.type) }
        guard let task = envelope.task else { throw .invalidData("task") }
        return task
    }

    // MARK: - Commands

    public static func line(_ command: WorkerCommand) -> String {
        switch command {
        case .stop: encode(Envelope(type: "stop"))
        case .setLayout(let layout): encode(Envelope(type: "set_layout", layout: layout))
        case .startLive(let live): encode(Envelope(type: "start_live", live: live))
        case .stopLive: encode(Envelope(type: "stop_live"))
        case .setE2EEKeys(let keys): encode(Envelope(type: "set_e2ee_keys", e2ee: keys))
        case .setToken(let token): encode(Envelope(type: "set_token", token: token))
        }
    }

    public static func command(from line: String) throws(DecodeError) -> WorkerCommand {
        let e = try decodeEnvelope(line)
        switch e.type {
        case "stop": return .stop
        case "set_layout":
            guard let layout = e.layout else { throw .invalidData("layout") }
            return .setLayout(layout)
        case "start_live":
            guard let live = e.live else { throw .invalidData("live") }
            return .startLive(live)
        case "stop_live": return .stopLive
        case "set_e2ee_keys":
            guard let keys = e.e2ee else { throw .invalidData("e2ee") }
            return .setE2EEKeys(keys)
        case "set_token":
            guard let token = e.token, !token.isEmpty else { throw .invalidData("token") }
            return .setToken(token)
        default: throw .unknownType(e.type)
        }
    }

    // MARK: - Events

    public static func line(_ event: WorkerEvent) -> String {
        switch event {
        case .started: encode(Envelope(type: "started"))
        case .liveStarted: encode(Envelope(type: "live_started"))
        case .liveEnded(let error): encode(Envelope(type: "live_ended", error: error))
        case .finished(let result): encode(Envelope(type: "finished", result: result))
        case .failed(let code, let message): encode(Envelope(type: "failed", code: code, message: message))
        case .ended(let reason): encode(Envelope(type: "ended", reason: reason))
        case .inputStarted(let input): encode(Envelope(type: "input_started", input: input))
        case .inputChanged(let input): encode(Envelope(type: "input_changed", input: input))
        case .inputEnded(let reason): encode(Envelope(type: "input_ended", reason: reason))
        case .caption(let caption): encode(CaptionEnvelope(type: "caption", caption: caption))
        }
    }

    public static func event(from line: String) throws(DecodeError) -> WorkerEvent {
        let e = try decodeEnvelope(line)
        switch e.type {
        case "started": return .started
        case "live_started": return .liveStarted
        case "live_ended": return .liveEnded(error: e.error)
        case "finished":
            guard let result = e.result else { throw .invalidData("result") }
            return .finished(result)
        case "failed":
            guard let code = e.code else { throw .invalidData("code") }
            return .failed(code: code, message: e.message ?? "")
        case "ended": return .ended(reason: e.reason ?? "")
        case "input_started":
            guard let input = e.input else { throw .invalidData("input") }
            return .inputStarted(input)
        case "input_changed":
            guard let input = e.input else { throw .invalidData("input") }
            return .inputChanged(input)
        case "input_ended": return .inputEnded(reason: e.reason ?? "")
        case "caption":
            guard let caption = try? ownKeysDecoder.decode(CaptionEnvelope.self, from: Data(line.utf8)).caption else {
                throw .invalidData("caption")
            }
            return .caption(caption)
        default: throw .unknownType(e.type)
        }
    }

    // MARK: - Internals

    /// Every line's fields; each type uses a few.
    struct Envelope: Codable {
        var type: String
        var task: WorkerTask?
        var layout: EgressLayout?
        var live: LiveSettings?
        var e2ee: EgressE2EEKeys?
        var result: RecordingResult?
        var code: String?
        var message: String?
        var error: String?
        var reason: String?
        var input: IngressInput?
        var token: String?
    }

    /// The `caption` line, whose payload is the client protocol's `caption` event (docs/protocol.md,
    /// "Captions"): the server passes it on as it came. `Caption` spells its snake_case keys in its
    /// `CodingKeys`, as every type of the client protocol does (its codec converts no keys), so it
    /// is decoded here without key conversion: `convertFromSnakeCase` turns `start_ms` into
    /// `startMs` before matching, and `start_ms` would never be found. The shared encoder writes
    /// it unchanged, since snake_case conversion leaves a key without capitals as it is.
    struct CaptionEnvelope: Codable {
        var type: String
        var caption: Caption
    }

    /// For the types that spell their own keys (`CaptionEnvelope`).
    private static let ownKeysDecoder = JSONDecoder()

    static func encode(_ envelope: some Encodable) -> String {
        guard let data = try? encoder.encode(envelope) else { return #"{"type":"invalid"}"# }
        return String(decoding: data, as: UTF8.self)
    }

    static func decodeEnvelope(_ line: String) throws(DecodeError) -> Envelope {
        guard line.utf8.count <= maxLineBytes else { throw .malformed }
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], object["type"] is String else {
            throw .malformed
        }
        do {
            return try decoder.decode(Envelope.self, from: Data(line.utf8))
        } catch {
            throw .invalidData("\(error)")
        }
    }
}
