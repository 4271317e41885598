import Foundation
import RTCMedia
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
    ///   - topic: an optional label recipients see (at most 255 bytes of UTF-8; with `encrypted`
    ///     it stays in the clear, authenticated).
    ///   - encrypted: encrypt the payload end to end with this client's E2EE key
    ///     (`Configuration.e2ee`, docs/e2ee.md, "Data messages"); recipients without the key get
    ///     `channel(_:didFailToDecryptData:)` instead of the message.
    /// - Throws: `payload_too_large` (41301) when the packet exceeds 16 KiB with its header;
    ///   `wrongState` before the data channel is open, or with `encrypted` when E2EE is not
    ///   configured or this client has no key to send under yet; `invalid_parameter` (40002) for a
    ///   plain payload that begins with the encrypted marker `FF 53 46 01`.
    public func publishData(_ data: Data, reliable: Bool = true, to uids: [String]? = nil, topic: String? = nil,
                            encrypted: Bool = false) throws(SRTCError) {
        var payload = Array(data)
        if encrypted {
            guard let e2ee = state.sync({ $0.media?.e2ee }) else {
                throw .wrongState("end-to-end encryption is not configured (Configuration.e2ee)")
            }
            let topicBytes = Array((topic ?? "").utf8)
            guard topicBytes.count <= 255 else {
                throw .server(code: APIErrorCode.invalidParameter.rawValue, message: "data packet: \(DataPacketError.fieldTooLong)")
            }
            guard let sealed = e2ee.encryptData(payload, topic: topicBytes) else {
                throw .wrongState("no end-to-end encryption key to send under yet")
            }
            payload = sealed
        } else if payload.withUnsafeBytes({ E2EEData.isEncrypted($0) }) {
            throw .server(code: APIErrorCode.invalidParameter.rawValue,
                          message: "a plain data payload may not begin with the encrypted marker FF 53 46 01")
        }
        let packet: [UInt8]
        do { packet = try DataPacket.publish(payload: payload, to: uids ?? [], topic: topic) } catch {
            switch error {
            case .tooLarge:
                throw .server(code: APIErrorCode.payloadTooLarge.rawValue, message: "data packet exceeds \(DataPacket.maxSize) bytes")
            default:
                throw .server(code: APIErrorCode.invalidParameter.rawValue, message: "data packet: \(error)")
            }
        }
        guard let media = state.sync({ $0.media }), media.subscribe.dataChannelOpen else {
            throw .wrongState("the data channel is not open")
        }
        media.subscribe.sendData(packet, on: reliable ? SignalDataChannel.reliableID : SignalDataChannel.lossyID)
    }

    /// Delivers a data packet that arrived (from the channel's queue).
    func receiveData(_ message: DataMessage) {
        delegates.notify { [self] in $0.channel(self, didReceiveData: message) }
    }
}
