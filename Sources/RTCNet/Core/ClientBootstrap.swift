import Foundation

/// The steps every client connection shares: resolve the host without blocking an I/O thread or
/// the concurrency pool, then connect on a loop with an overall deadline.
enum ClientBootstrap {
    /// Resolves `host` (numeric addresses at once; names with `getaddrinfo` on a thread of its own:
    /// it can block for seconds, and Dispatch's global queue has only about one thread per core).
    static func resolve(host: String, port: UInt16) async throws(NetError) -> SocketAddress {
        if let numeric = SocketAddress(ip: host, port: port) { return numeric }
        let result: Result<SocketAddress, NetError> = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                do throws(NetError) {
                    continuation.resume(returning: .success(try SocketAddress.resolve(host: host, port: port)))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }

    /// Connects `handler` to `address` on `loop`; the connection is closed with `.timeout` if it is
    /// not done by `deadline` (monotonic ns), unless the handler moves the deadline.
    static func connect(to address: SocketAddress, on loop: EventLoop, tls: TLSSession?, deadline: UInt64, handler: StreamHandler & Sendable) {
        loop.execute {
            let stream = StreamConnection.connect(to: address, on: loop, tls: tls, handler: handler)
            stream?.deadline = deadline
        }
    }
}
