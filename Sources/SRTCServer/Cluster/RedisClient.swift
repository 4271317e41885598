import CHiredis
import Dispatch
import Foundation
import Synchronization

/// One Redis connection through hiredis, serialized by a mutex; commands go as argument vectors
/// (`redisCommandArgv`), so values are never spliced into command text. A broken connection is
/// re-established before the next command. `command` blocks for one round trip (the nonce check
/// of a signed request is synchronous); `run` does the same on the client's own queue, for async
/// callers that must not hold a cooperative thread.
public final class RedisClient: Sendable {
    /// Where to connect: from `redis://[:password@]host[:port][/db]`.
    public struct Endpoint: Sendable, Equatable {
        public var host: String
        public var port: Int32
        public var password: String?
        public var database: Int

        public init(url: String) throws(RedisError) {
            guard let components = URLComponents(string: url), components.scheme == "redis" else {
                throw .invalidURL("expected redis://host:port")
            }
            guard let host = components.host, !host.isEmpty else { throw .invalidURL("no host") }
            self.host = host
            port = Int32(components.port ?? 6379)
            password = components.password.flatMap { $0.isEmpty ? nil : $0 }
            let path = components.path.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
            guard path.isEmpty || Int(path) != nil else { throw .invalidURL("the path must be a database number") }
            database = Int(path) ?? 0
        }
    }

    public let endpoint: Endpoint
    private let context = Mutex<UnsafeMutablePointer<redisContext>?>(nil)
    private let queue = DispatchQueue(label: "srtc.redis")
    /// Seconds to connect and to wait for each reply.
    private let timeout: Int

    /// Connects to `url` (failing now if Redis cannot be reached).
    public init(url: String, timeoutSeconds: Int = 5) throws(RedisError) {
        endpoint = try Endpoint(url: url)
        timeout = timeoutSeconds
        _ = try command(["PING"])
    }

    deinit {
        context.withLock { c in
            if let c { redisFree(c) }
            c = nil
        }
    }

    /// Runs one command and returns its reply; a Redis error reply throws `.server`.
    @discardableResult
    public func command(_ arguments: [String]) throws(RedisError) -> RedisValue {
        try context.withLock { c throws(RedisError) in
            if c == nil || c!.pointee.err != 0 {
                if let old = c { redisFree(old) }
                c = nil
                c = try connect()
            }
            do throws(RedisError) {
                return try Self.send(c!, arguments)
            } catch {
                if case .connection = error, let broken = c { redisFree(broken); c = nil }
                throw error
            }
        }
    }

    /// `command` on the client's queue.
    @discardableResult
    public func run(_ arguments: [String]) async throws -> RedisValue {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { () throws(RedisError) -> RedisValue in try self.command(arguments) }) }
        }
    }

    /// `command` on the client's queue without waiting for the reply (errors are logged):
    /// commands sent from one context are applied in the order they were sent, before any later
    /// `run` of this client.
    public func send(_ arguments: [String]) {
        queue.async {
            do throws(RedisError) { try self.command(arguments) } catch {
                Log.warn("cluster", "redis \(arguments.first ?? "") failed: \(error)")
            }
        }
    }

    // MARK: - Internals

    private func connect() throws(RedisError) -> UnsafeMutablePointer<redisContext> {
        let tv = timeval(tv_sec: timeout, tv_usec: 0)
        guard let c = redisConnectWithTimeout(endpoint.host, endpoint.port, tv) else { throw .connection("out of memory") }
        guard c.pointee.err == 0 else {
            let message = Self.errorText(c)
            redisFree(c)
            throw .connection(message)
        }
        redisSetTimeout(c, tv)
        do throws(RedisError) {
            if let password = endpoint.password { try Self.send(c, ["AUTH", password]) }
            if endpoint.database != 0 { try Self.send(c, ["SELECT", String(endpoint.database)]) }
        } catch {
            redisFree(c)
            throw error
        }
        return c
    }

    @discardableResult
    private static func send(_ c: UnsafeMutablePointer<redisContext>, _ arguments: [String]) throws(RedisError) -> RedisValue {
        let bytes = arguments.map { Array($0.utf8) }
        let lengths = bytes.map(\.count)
        let raw: UnsafeMutableRawPointer? = withPointers(bytes) { pointers in
            var argv = pointers
            return redisCommandArgv(c, Int32(argv.count), &argv, lengths)
        }
        guard let raw else { throw .connection(errorText(c)) }
        let reply = raw.assumingMemoryBound(to: redisReply.self)
        defer { freeReplyObject(raw) }
        if reply.pointee.type == REDIS_REPLY_ERROR { throw .server(text(reply)) }
        return value(reply)
    }

    /// Stable C pointers to each argument's bytes for the duration of `body`.
    private static func withPointers<R>(_ bytes: [[UInt8]], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
        let buffers = bytes.map { b -> UnsafeMutablePointer<CChar> in
            let p = UnsafeMutablePointer<CChar>.allocate(capacity: max(b.count, 1))
            b.withUnsafeBytes { if let base = $0.baseAddress { UnsafeMutableRawPointer(p).copyMemory(from: base, byteCount: b.count) } }
            return p
        }
        defer { buffers.forEach { $0.deallocate() } }
        return body(buffers.map { UnsafePointer($0) })
    }

    private static func value(_ reply: UnsafeMutablePointer<redisReply>) -> RedisValue {
        switch reply.pointee.type {
        case REDIS_REPLY_INTEGER: return .integer(Int64(reply.pointee.integer))
        case REDIS_REPLY_STRING: return .string(text(reply))
        case REDIS_REPLY_STATUS: return .status(text(reply))
        case REDIS_REPLY_ARRAY:
            return .array((0..<Int(reply.pointee.elements)).map { i in reply.pointee.element[i].map(value) ?? .null })
        default: return .null
        }
    }

    private static func text(_ reply: UnsafeMutablePointer<redisReply>) -> String {
        guard let str = reply.pointee.str else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: str, count: Int(reply.pointee.len)), as: UTF8.self)
    }

    private static func errorText(_ c: UnsafeMutablePointer<redisContext>) -> String {
        withUnsafeBytes(of: c.pointee.errstr) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
