// Errors of the FFmpeg wrappers: every failing libav call is reported with its name and libav's own
// text for the code, so a log line says which step of opening, muxing or decoding went wrong.
import CAVCodec
import CAVFormat
import CAVUtil
import CSWScale

/// Why a libav* operation failed.
public enum AVMediaError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A libav call returned an error: its name, the negative `AVERROR` code and libav's message.
    case failed(call: String, code: Int32, message: String)
    /// No encoder or decoder of this name or codec is built into the installed FFmpeg.
    case codecNotFound(String)
    /// libavformat knows no container of this name.
    case formatNotFound(String)
    /// The input holds no stream of the wanted kind.
    case noStream(String)
    /// A parameter the wrapper refuses (a size, a rate, a codec the container cannot hold).
    case invalidParameter(String)
    /// The input ended.
    case endOfStream
    /// Blocking I/O was interrupted (stopped, or its time limit passed).
    case interrupted
    /// A call in the wrong state (writing before `start()` or after `finish()`).
    case wrongState(String)

    public var description: String {
        switch self {
        case .failed(let call, let code, let message): return "\(call) failed (\(code)): \(message)"
        case .codecNotFound(let name): return "codec \(name) is not available in this FFmpeg"
        case .formatNotFound(let name): return "container format \(name) is not available in this FFmpeg"
        case .noStream(let what): return "no \(what) stream"
        case .invalidParameter(let why): return "invalid parameter: \(why)"
        case .endOfStream: return "end of stream"
        case .interrupted: return "interrupted"
        case .wrongState(let why): return "wrong state: \(why)"
        }
    }

    /// Throws `.failed` (or `.endOfStream` / `.interrupted`) when `code` is negative; returns it otherwise.
    @discardableResult
    static func check(_ code: Int32, _ call: String) throws(AVMediaError) -> Int32 {
        guard code < 0 else { return code }
        if code == srtc_averror_eof { throw .endOfStream }
        if code == srtc_averror_exit { throw .interrupted }
        throw .failed(call: call, code: code, message: message(for: code))
    }

    /// libav's text for an error code.
    static func message(for code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 128)
        guard av_strerror(code, &buffer, buffer.count) == 0 else { return "error \(code)" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
