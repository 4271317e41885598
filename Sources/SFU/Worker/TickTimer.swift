import Dispatch

/// A repeating timer on its own serial queue, driving the SFU's periodic work: each firing posts
/// one tick to the I/O thread (the media port offers no timer hook of its own).
/// `DispatchSourceTimer` is thread-safe for `cancel`, which is all that is called after start.
final class TickTimer: @unchecked Sendable {
    private let source: DispatchSourceTimer

    init(intervalMicros: Int64, _ handler: @escaping @Sendable () -> Void) {
        source = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "srtc-sfu-timer"))
        source.schedule(deadline: .now(), repeating: .microseconds(Int(max(1000, intervalMicros))))
        source.setEventHandler(handler: handler)
        source.resume()
    }

    func cancel() { source.cancel() }
}
