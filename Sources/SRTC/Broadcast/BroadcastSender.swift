import RTCMedia
import Synchronization

/// The broadcast extension's side of a screen broadcast: connects to the host app's socket, says
/// hello, hands over screen frames and app audio, and reports the host's request to stop.
/// Platform-neutral (POSIX sockets); on iOS `SRTCBroadcastExtension` wraps it for a ReplayKit
/// `SampleHandler`. Sending is synchronous on the caller's thread (ReplayKit's sample queue);
/// frames are framed into one reused buffer.
public final class BroadcastSender: Sendable {
    private let socket: BroadcastSocket
    private let output = Mutex<[UInt8]>([])
    private let thread = Mutex<DeviceThread?>(nil)
    /// Whether `onStop` may still be called (a class: the sender's thread shares it).
    private final class OpenFlag: Sendable {
        let value = Atomic<Bool>(true)
    }
    private let open = OpenFlag()

    /// Connects to the host listening on `path`.
    /// - Parameter onStop: called once, on the sender's own thread, when the host asks the
    ///   broadcast to end (`stopScreenRecord()`) or goes away.
    /// - Throws: `.connectionFailed` when no host listens there.
    public init(path: String, onStop: @escaping @Sendable () -> Void) throws(SRTCError) {
        socket = try BroadcastSocket.connect(path: path)
        // Hello before the reader starts: a host that closes meanwhile (its listener going away
        // as this connects) fails the hello and the init, and no reader is left to report that
        // sender's end through `onStop` (SMeetingBroadcastShareTests counted such a stop once).
        guard send(.hello(version: BroadcastMessage.version)) else { throw .connectionFailed("the broadcast host closed") }
        let (socket, open) = (self.socket, self.open)
        let hostWatch = DeviceThread(name: "srtc.broadcast.sender") { thread in
            var reader = BroadcastStreamReader()
            var chunk = [UInt8](repeating: 0, count: 256)
            while thread.isRunning {
                guard socket.wait(timeoutMs: 200) else { continue }
                let n = chunk.withUnsafeMutableBytes { socket.read(into: $0) }
                if n > 0 { chunk.withUnsafeBytes { reader.append(UnsafeRawBufferPointer(rebasing: $0[0..<n])) } }
                if n <= 0 || (try? reader.next()) == .stop || reader.pendingBytes > 64 { break }
            }
            if open.value.exchange(false, ordering: .acquiringAndReleasing) { onStop() }
        }
        thread.withLock { $0 = hostWatch }
    }

    deinit { thread.withLock { $0 }?.stop() }

    /// Hands a screen frame over. Returns false once the host is gone.
    @discardableResult
    public func send(frame: VideoFrame) -> Bool { send(.video(frame)) }

    /// Hands app audio over. Returns false once the host is gone.
    @discardableResult
    public func send(appAudio: AudioPCMBuffer) -> Bool { send(.appAudio(appAudio)) }

    /// Tells the host the user ended the broadcast, and disconnects.
    public func finish() {
        // Closed to `onStop` first: the host closes the socket on `.finished`, and the reader must not
        // take that close, which can come before `send` returns, for a request to stop.
        open.value.store(false, ordering: .releasing)
        _ = send(.finished)
        thread.withLock { t in defer { t = nil }; return t }?.stop()
    }

    private func send(_ message: BroadcastMessage) -> Bool {
        output.withLock { bytes in
            bytes.removeAll(keepingCapacity: true)
            message.encode(into: &bytes)
            return socket.write(bytes)
        }
    }
}
