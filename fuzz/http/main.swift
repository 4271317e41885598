#if canImport(RTCNet)
import RTCNet
#endif
// libFuzzer target for the HTTP/1.1 request and response parsers, built by fuzz/run-all against the
// RTCNet module (see README.md).

/// Feeds `bytes` to a parser in two pieces split at `cut`, as a socket might deliver them, and
/// pulls out messages until the parser wants more or refuses the input.
@_cdecl("LLVMFuzzerTestOneInput")
public func httpFuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let cut = bytes.isEmpty ? 0 : Int(bytes[0]) % (bytes.count + 1)

    // Requests, with small limits so the limit paths are reached too.
    var requests = HTTPRequestParser(limits: .init(maxRequestLineBytes: 512, maxHeaderBytes: 2048, maxHeaderCount: 16, maxBodyBytes: 4096))
    var buffer = ByteBuffer(bytes[0..<cut])
    var failed = false
    for piece in 0..<2 {
        if piece == 1 { buffer.append(contentsOf: bytes[cut...]) }
        while !failed {
            let before = buffer.readableBytes
            do {
                guard let request = try requests.next(from: &buffer) else { break }
                precondition(request.body.count <= 4096, "body over the limit")
                precondition(buffer.readableBytes < before, "a request consumed nothing")
            } catch {
                precondition((400...505).contains(error.status), "odd status")
                failed = true
            }
        }
    }

    // Responses, the client's side.
    var responses = HTTPResponseParser(requestMethod: cut % 2 == 0 ? "GET" : "HEAD", limits: .init(maxHeaderBytes: 2048, maxHeaderCount: 16, maxBodyBytes: 4096))
    var input = ByteBuffer(bytes)
    for _ in 0...bytes.count {
        let before = input.readableBytes
        guard let response = try? responses.next(from: &input) else { break }
        precondition(response.body.count <= 4096, "body over the limit")
        if input.readableBytes == before { break }
    }
    _ = responses.finish()
    return 0
}
