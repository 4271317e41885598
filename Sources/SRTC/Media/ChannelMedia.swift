import Foundation
import SRTCProtocol

/// The media side of one joined channel: the publish and subscribe transports.
final class ChannelMedia: @unchecked Sendable {
    func close() {}
}
