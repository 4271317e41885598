import Foundation
import RTCWire
import SRTCProtocol

// User data on the subscribe transport's data channels (docs/protocol.md, "Data messages").
extension Channel {
    /// Sends user data to `uids`, or to everyone else when `uids` is nil or empty, over the
    /// channel's data channel: `reliable` (ordered, retransmitted) or lossy (unordered, sent once:
    /// for state that the next message replaces). Recipients get `channel(_:didReceiveData:)`.
    /// Returns once the message is queued; needs the token's `publish_data` permission (the server
    /// drops it otherwise) and `SRTCEngine.Configuration.useDataChannel`.
    /// - Parameters:
    ///   - topic: an optional label recipients see (at most 255 bytes of UTF-8).
    /// - Throws: `payload_too_large` (41301) when the packet exceeds 16 KiB with its header;
    ///   `wrongState` before the data channel is open.
    public func publishData(_ data: Data, reliable: Bool = true, to uids: [String]? = nil, topic: String? = nil) throws(SRTCError) {
        let packet: [UInt8]
        do { packet = try DataPacket.publish(payload: Array(data), to: uids ?? [], topic: topic) } catch {
            switch error {
            case .tooLarge:
                throw .server(code: APIErrorCode.payloadTooLarge.rawValue, message: "data packet exceeds \(DataPacket.maxSize) bytes")
            default:
                throw .server(code: APIErrorCode.invalidParameter.rawValue, message: "data packet: \(error)")
            }
        }
        guard let media = state.withLock({ $0.media }), media.subscribe.dataChannelOpen else {
            throw .wrongState("the data channel is not open")
        }
        media.subscribe.sendData(packet, on: reliable ? SignalDataChannel.reliableID : SignalDataChannel.lossyID)
    }

    /// Delivers a data packet that arrived (from the channel's queue).
    func receiveData(_ message: DataMessage) {
        delegates.notify { [self] in $0.channel(self, didReceiveData: message) }
    }
}
