import Foundation
import RTCMedia
import Synchronization

/// The host app's side of a screen broadcast (the documentation's ReplayKit screen capture):
/// listens on a Unix socket for the broadcast extension, feeds the frames it hands over to a
/// screen track (`screen`, published by each channel that should send it) and its app audio to
/// an audio track (`screen_audio`), and ends the broadcast on `stop()`. One extension at a time;
/// while none is connected the host keeps listening, so the user can start again from the
/// system's panel. Platform-neutral (POSIX sockets): the iOS layer only chooses the path.
final class BroadcastHost: Sendable {
    /// A broadcast starting or ending.
    enum Change: Sendable, Equatable {
        case started
        /// `reason`: `finished` (the extension ended it: the user, from the system UI),
        /// `stopped` (this app: `stopScreenRecord()`, or listening stopped), `disconnected` (the
        /// extension went away without a word), `invalid` (it sent something that is not a
        /// broadcast message).
        case ended(reason: String)
    }

    let video: LocalCustomVideoTrack
    let audio: LocalCustomAudioTrack
    private let listener: BroadcastSocket
    private let path: String
    /// The connected extension, whether it said hello, and whether this app asked it to stop.
    private let connection = Mutex<(socket: BroadcastSocket?, started: Bool, stopRequested: Bool)>((nil, false, false))
    private let thread = Mutex<DeviceThread?>(nil)
    private let onChange: @Sendable (Change) -> Void

    /// Listens on `path`.
    /// - Parameter onChange: called on the host's thread when an extension starts or ends a
    ///   broadcast.
    /// - Throws: `.systemError` when the socket cannot be created there.
    init(path: String, video: LocalCustomVideoTrack, audio: LocalCustomAudioTrack, logger: Logger,
         onChange: @escaping @Sendable (Change) -> Void) throws(SRTCError) {
        self.video = video
        self.audio = audio
        self.onChange = onChange
        listener = try BroadcastSocket.listen(path: path)
        self.path = path
        let box = UncheckedBox(self)
        thread.withLock {
            $0 = DeviceThread(name: "srtc.broadcast.host") { thread in box.value.run(thread, logger: logger) }
        }
    }

    /// Whether an extension said hello and is broadcasting.
    var isBroadcasting: Bool { connection.withLock { $0.started } }

    /// Tells the connected extension to end its broadcast (the documentation's
    /// `stopScreenRecord`); listening goes on.
    func endBroadcast() {
        var bytes: [UInt8] = []
        BroadcastMessage.stop.encode(into: &bytes)
        let socket = connection.withLock { c -> BroadcastSocket? in
            c.stopRequested = c.socket != nil
            return c.socket
        }
        _ = socket?.write(bytes)
    }

    /// Ends the broadcast and stops listening: from its return, connecting fails.
    func close() {
        endBroadcast()
        thread.withLock { t in defer { t = nil }; return t }?.stop()
        listener.close()
        unlink(path)
    }

    // MARK: - Internals

    private func run(_ thread: DeviceThread, logger: Logger) {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while thread.isRunning {
            guard let client = listener.accept(timeoutMs: 200) else { continue }
            connection.withLock { $0 = (client, false, false) }
            let reason = serve(client, thread: thread, chunk: &chunk, logger: logger)
            let (started, stopRequested) = connection.withLock { c in
                defer { c = (nil, false, false) }
                return (c.started, c.stopRequested)
            }
            if started { onChange(.ended(reason: stopRequested || !thread.isRunning ? "stopped" : reason)) }
        }
    }

    /// Reads one extension's stream until it ends; returns why it ended.
    private func serve(_ client: BroadcastSocket, thread: DeviceThread, chunk: inout [UInt8], logger: Logger) -> String {
        var reader = BroadcastStreamReader()
        var started = false
        while thread.isRunning {
            guard client.wait(timeoutMs: 200) else { continue }
            let n = chunk.withUnsafeMutableBytes { client.read(into: $0) }
            guard n > 0 else { return "disconnected" }
            chunk.withUnsafeBytes { reader.append(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            do {
                while let message = try reader.next() {
                    switch message {
                    case .hello(let version) where !started:
                        guard version == BroadcastMessage.version else {
                            logger.warning("broadcast extension of protocol version \(version) refused (this SDK speaks \(BroadcastMessage.version))")
                            return "invalid"
                        }
                        started = true
                        connection.withLock { $0.started = true }
                        onChange(.started)
                    case .video(let frame) where started:
                        _ = video.pushFrame(frame)
                    case .appAudio(let buffer) where started:
                        audio.pushAudioBuffer(buffer)
                    case .finished where started:
                        return "finished"
                    default:
                        logger.warning("broadcast stream refused: a message out of place")
                        return "invalid"   // media before the hello, a second hello, or a host's message
                    }
                }
            } catch {
                logger.warning("broadcast stream refused: \(error)")
                return "invalid"
            }
        }
        return "stopped"
    }
}
