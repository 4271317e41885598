// libFuzzer target for the DTLS side of RTCTransport: random datagrams fed into a DTLS server
// (and a client that has sent its ClientHello), plus the RFC 7983 demultiplexer, the ICE-lite
// responder and SRTP unprotect on the same bytes. Built by `fuzz/run-all` with
// `swiftc -sanitize=fuzzer,address -parse-as-library`; a crash here is a bug.
//
// Input layout: records of [length: 2 bytes, big endian][datagram: length bytes].
#if canImport(RTCTransport)
import RTCTransport
import RTCNet
import RTCWire
#endif

nonisolated(unsafe) private var certificate: DTLSCertificate?
nonisolated(unsafe) private var srtp: SRTPContext?

@_cdecl("LLVMFuzzerTestOneInput")
public func dtlsFuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    if certificate == nil {
        certificate = try? DTLSCertificate()
        srtp = try? SRTPContext(profile: .aeadAES128GCM, localMasterKeyAndSalt: [UInt8](repeating: 1, count: 28),
                                remoteMasterKeyAndSalt: [UInt8](repeating: 2, count: 28))
    }
    guard let certificate,
          let server = try? DTLSEndpoint(role: .server, certificate: certificate, remoteFingerprint: certificate.fingerprint),
          let client = try? DTLSEndpoint(role: .client, certificate: certificate, remoteFingerprint: certificate.fingerprint)
    else { return 0 }
    _ = client.start()
    var lite = ICELiteResponder(local: ICECredentials(ufrag: "fuzz", pwd: "fuzz-password-0123456789"),
                                remote: ICECredentials(ufrag: "peer", pwd: "peer-password-0123456789"))
    let source = SocketAddress(ipv4: (127, 0, 0, 1), port: 5000)
    let input = UnsafeRawBufferPointer(start: data, count: size)
    var offset = 0
    var scratch = [UInt8](repeating: 0, count: 2048)
    while offset + 2 <= size {
        let length = Int(input[offset]) << 8 | Int(input[offset + 1])
        offset += 2
        let end = min(size, offset + length)
        let datagram = UnsafeRawBufferPointer(rebasing: input[offset..<end])
        offset = end
        switch PacketKind.classify(datagram) {
        case .stun:
            if let message = try? STUNMessage(parsing: datagram) {
                _ = lite.handle(message, raw: datagram, from: source, now: .now)
            }
        case .rtp, .rtcp:
            let count = min(datagram.count, scratch.count)
            scratch.withUnsafeMutableBytes { buffer in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: datagram[0..<count]))
                _ = try? srtp?.unprotectRTP(buffer, length: count)
                _ = try? srtp?.unprotectRTCP(buffer, length: count)
            }
        default:
            break
        }
        _ = server.handle(datagram)
        _ = client.handle(datagram)
    }
    _ = server.handleTimeout()
    _ = server.close()
    return 0
}
