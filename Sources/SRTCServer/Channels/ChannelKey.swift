/// A channel's identity: channels are scoped by app, so two apps may use the same name.
public struct ChannelKey: Hashable, Sendable, CustomStringConvertible {
    public let appId: String
    public let name: String

    public init(appId: String, name: String) {
        self.appId = appId
        self.name = name
    }

    public var description: String { "\(appId)/\(name)" }
}

/// Milliseconds since the Unix epoch, the protocol's time unit.
func unixMilliseconds() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
