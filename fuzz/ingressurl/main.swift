// libFuzzer target: the pull URLs of `ingress/create` (docs/ingress.md), checked before libavformat
// opens them. A URL that parses must keep an allowed scheme and a host, and its parts must
// rebuild a URL that parses to the same parts.
import EgressProtocol

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIngressURL(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    _ = IngressURL.isValidStreamKey(text)
    guard let url = try? IngressURL(pull: text) else { return 0 }
    precondition(IngressURL.pullSchemes.contains(url.scheme), "scheme \(url.scheme) let through")
    precondition(!url.host.isEmpty, "empty host let through")
    precondition(!text.utf8.contains { $0 <= 0x20 || $0 >= 0x7F }, "a control, space or non-ASCII byte let through")
    let rebuilt = url.scheme + "://" + url.host + (url.port.map { ":\($0)" } ?? "") + url.rest
    guard let again = try? IngressURL(pull: rebuilt) else { preconditionFailure("rebuilt URL \(rebuilt) does not parse") }
    precondition(again == url, "round trip changed the URL")
    return 0
}
