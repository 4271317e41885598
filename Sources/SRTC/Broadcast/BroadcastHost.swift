import RTCMedia
import Synchronization

/// The host app's side of a screen broadcast (the documentation's ReplayKit screen capture):
/// listens on a Unix socket for the broadcast extension, feeds the frames it hands over to a
/// screen track (`screen`, published by each channel that should send it) and its app audio to
/// an audio track (`screen_audio`), and ends the broadcast on `stop()`. One extension at a time;
/// while none is connected the host keeps listening, so the user can start again from the
/// system's panel. Platform-neutral (POSIX sockets): the iOS layer only chooses the path.
final class BroadcastHost: @unchecked Sendable {
    let video: LocalCustomVideoTrack
    let audio: LocalCustomAudioTrack
    private let listener: BroadcastSocket
    private let connection = Mutex<BroadcastSocket?>(nil)
    private let thread = Mutex<DeviceThread?>(nil)
    private let onChange: @Sendable (_ broadcasting: Bool) -> Void

    /// Listens on `path`.
    /// - Parameter onChange: called on the host's thread when an extension starts or ends a
    ///   broadcast.
    /// - Throws: `.systemError` when the socket cannot be created there.
    init(path: String, video: LocalCustomVideoTrack, audio: LocalCustomAudioTrack, logger: Logger,
         onChange: @escaping @Sendable (Bool) -> Void) throws(SRTCError) {
        self.video = video
        self.audio = audio
        self.onChange = onChange
        listener = try BroadcastSocket.listen(path: path)
        let box = UncheckedBox(self)
        thread.withLock {
            $0 = DeviceThread(name: "srtc.broadcast.host") { thread in box.value.run(thread, logger: logger) }
        }
    }

    /// Whether an extension is connected and broadcasting.
    var isBroadcasting: Bool { connection.withLock { $0 != nil } }

    /// Tells the connected extension to end its broadcast (the documentation's
    /// `stopScreenRecord`); listening goes on.
    func endBroadcast() {
        var bytes: [UInt8] = []
        BroadcastMessage.stop.encode(into: &bytes)
        _ = connection.withLock { $0 }?.write(bytes)
    }

    /// Ends the broadcast and stops listening.
    func close() {
        endBroadcast()
        thread.withLock { t in defer { t = nil }; return t }?.stop()
    }

    // MARK: - Internals

    private func run(_ thread: DeviceThread, logger: Logger) {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while thread.isRunning {
            guard let client = listener.accept(timeoutMs: 200) else { continue }
            var reader = BroadcastStreamReader()
            var started = false
            connection.withLock { $0 = client }
            reading: while thread.isRunning {
                guard client.wait(timeoutMs: 200) else { continue }
                let n = chunk.withUnsafeMutableBytes { client.read(into: $0) }
                guard n > 0 else { break }
                chunk.withUnsafeBytes { reader.append(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
                do {
                    while let message = try reader.next() {
                        switch message {
                        case .hello(let version):
                            guard version == BroadcastMessage.version, !started else { break reading }
                            started = true
                            onChange(true)
                        case .video(let frame) where started:
                            _ = video.pushFrame(frame)
                        case .appAudio(let buffer) where started:
                            audio.pushAudioBuffer(buffer)
                        case .finished:
                            break reading
                        default:
                            break reading   // media before the hello, or a host's message
                        }
                    }
                } catch {
                    logger.warning("broadcast stream refused: \(error)")
                    break
                }
            }
            connection.withLock { $0 = nil }
            if started { onChange(false) }
        }
    }
}
