import SRTCServer

/// A meeting's orders to its SRTC channels (server-side mutes, unpublishing, removals, closing),
/// carried out one at a time in the order the meeting gave them. The meeting's state changes
/// synchronously inside its actor; the channels follow through this one serial stream, so a
/// hold and its release can never swap places.
final class ChannelCommandQueue: Sendable {
    enum Command: Sendable {
        /// Hold `desc` of `uid` muted (or release it).
        case hold(ChannelKey, uid: String, desc: String, muted: Bool)
        case unpublish(ChannelKey, uid: String, desc: String)
        case kick(ChannelKey, uid: String, message: String)
        case close(ChannelKey)
        /// Resumes its continuation once every earlier command is done.
        case barrier(CheckedContinuation<Void, Never>)
    }

    private let continuation: AsyncStream<Command>.Continuation

    init(channels: ChannelControl) {
        let (stream, continuation) = AsyncStream<Command>.makeStream()
        self.continuation = continuation
        Task {
            for await command in stream {
                switch command {
                case .hold(let key, let uid, let desc, let muted): await channels.setMuted(key, uid: uid, desc: desc, muted: muted)
                case .unpublish(let key, let uid, let desc): await channels.unpublish(key, uid: uid, desc: desc)
                case .kick(let key, let uid, let message): await channels.kick(key, uid: uid, message: message)
                case .close(let key): await channels.close(key)
                case .barrier(let done): done.resume()
                }
            }
        }
    }

    deinit { continuation.finish() }

    func enqueue(_ command: Command) {
        continuation.yield(command)
    }

    /// Waits until every command given so far was carried out.
    func flush() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            if case .terminated = continuation.yield(.barrier(done)) { done.resume() }
        }
    }
}
