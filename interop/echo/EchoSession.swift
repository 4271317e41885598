import Foundation
import Synchronization
import RTCNet
import RTCTransport
import RTCWire

/// Echoes every RTP packet the browser sends back to it on the SSRCs announced in the answer
/// (payload, sequence number and timestamp unchanged), and asks the browser's video sender for
/// key frames with PLI once a second so the echoed video decodes. Runs on the port's I/O thread.
final class EchoSession: PeerTransportDelegate, @unchecked Sendable {
    let audioPT: Int, videoPT: Int
    let audioSSRC: UInt32, videoSSRC: UInt32
    private var browserVideoSSRC: UInt32?
    private var echoed = 0
    private var lastReport = ContinuousClock.now
    let log: (String) -> Void

    init(audioPT: Int, videoPT: Int, audioSSRC: UInt32, videoSSRC: UInt32, log: @escaping (String) -> Void) {
        self.audioPT = audioPT; self.videoPT = videoPT
        self.audioSSRC = audioSSRC; self.videoSSRC = videoSSRC
        self.log = log
    }

    func peerTransport(_ transport: PeerTransport, didChangeState state: PeerTransport.State) {
        var line = "transport state: \(state)"
        if state == .connected, let profile = transport.srtpProfile { line += ", SRTP profile \(profile.openSSLName)" }
        if let address = transport.remoteAddress { line += ", remote \(address)" }
        log(line)
    }

    func peerTransport(_ transport: PeerTransport, didReceiveRTP packet: UnsafeMutableRawBufferPointer) {
        guard let view = try? RTPPacketView(UnsafeRawBufferPointer(packet)) else { return }
        let pt = Int(view.payloadType)
        let ssrc: UInt32
        if pt == audioPT { ssrc = audioSSRC } else if pt == videoPT {
            ssrc = videoSSRC
            if browserVideoSSRC == nil { browserVideoSSRC = view.ssrc; log("browser video SSRC \(view.ssrc)") }
        } else { return }
        let sent = transport.sendRTP { slot in
            guard packet.count <= slot.count else { return nil }
            slot.copyMemory(from: UnsafeRawBufferPointer(packet))
            guard let out = try? RTPMutablePacketView(UnsafeMutableRawBufferPointer(rebasing: slot[0..<packet.count])) else { return nil }
            out.ssrc = ssrc
            return packet.count
        }
        if sent { echoed += 1 }
        let now = ContinuousClock.now
        if now - lastReport > .seconds(2) {
            lastReport = now
            log("echoed \(echoed) RTP packets; stats \(transport.stats)")
        }
    }

    func peerTransport(_ transport: PeerTransport, didReceiveRTCP packet: UnsafeMutableRawBufferPointer) {}

    /// An empty receiver report followed by a PLI (RFC 4585 §6.3.1) for the browser's video sender.
    func requestKeyFrame(on transport: PeerTransport) {
        guard let media = browserVideoSSRC else { return }
        var rtcp: [UInt8] = [0x80, 201, 0x00, 0x01] // RR, RC=0, length 1
        append(&rtcp, videoSSRC)
        rtcp += [0x81, 206, 0x00, 0x02]              // PSFB, FMT=1 (PLI), length 2
        append(&rtcp, videoSSRC)                     // sender SSRC
        append(&rtcp, media)                         // media source SSRC
        rtcp.withUnsafeBytes { _ = transport.sendRTCP($0) }
    }

    private func append(_ out: inout [UInt8], _ v: UInt32) {
        out += [UInt8(v >> 24), UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff)]
    }
}
