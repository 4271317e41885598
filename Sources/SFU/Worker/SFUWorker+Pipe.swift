import RTCNet
import RTCTransport

extension SFUWorker {
    /// Creates one end of a `WorkerPipe` as a transport of `router` (docs/architecture.md, "A
    /// channel larger than a worker"). On the channel's worker (`.channel`) it is consumed from
    /// like a subscriber's transport, one consumer per relayed track; on the other worker
    /// (`.far`) the relayed tracks are produced on it and that router's subscribers consume
    /// them. Both ends relay user data (`dataRelay`). Its packets arrive on this worker's thread
    /// from the pipe, read in place.
    public func createPipeTransport(_ id: TransportID, router: RouterID, participant: ParticipantID,
                                    pipe: WorkerPipe, side: WorkerPipe.Side) async throws(SFUError) {
        let port = self.port
        try await perform { core, now throws(SFUError) in
            let transport = try core.createTransport(id, router: router, participant: participant,
                                                     sink: PipeSink(pipe: pipe, side: side), now: now)
            transport.carriesData = true
            transport.dataRelay = true
            // Nothing to negotiate: its timers (reports, NACKs) run from the start.
            transport.state = .connected
            let incoming = pipe.ring(to: side)
            pipe.setEndpoint(side, WorkerPipe.Endpoint(port: port, transport: transport))
            port.attach(incoming) { [weak transport] in
                let now = MediaClock.now()
                incoming.drain { tag, bytes in
                    guard let transport else { return }
                    if tag == PipeSink.rtp {
                        transport.receiveRTP(UnsafeRawBufferPointer(bytes), now: now)
                    } else {
                        transport.receiveRTCP(UnsafeRawBufferPointer(bytes), now: now)
                    }
                }
            }
            transport.onClose = {
                port.detach(incoming)
                pipe.setEndpoint(side, nil)
            }
        }
    }
}
