import Foundation
import RTCNet
import SRTCProtocol

// Losing the signaling connection: the machine (`ChannelMachine`, with its `ReconnectMachine`)
// decides when to try again and when to give up; an attempt's I/O is here.
extension Channel {
    /// One reconnection attempt: a new WebSocket and `join` with the session id.
    func reconnect(attempt: Int) async {
        if engineType == .cdn { return await reopenStream(attempt: attempt) }
        guard let parameters = state.sync({ $0.machine.parameters }) else { return }
        context.logger.debug("reconnect attempt \(attempt + 1)")
        var opened: SignalLink?
        do throws(SRTCError) {
            let client = try await SignalClient.connect(url: parameters.webSocketURL, tls: context.configuration.tls, timeout: .seconds(5))
            let link = SignalLink(client: client)
            opened = link
            // Without `sendJoin` the attempt is no longer wanted (the step closed the link).
            guard case .sendJoin(_, let parameters, let sessionId, _)? = await onQueue({ [self] in step(.linkOpened(link, attempt: attempt)) }).first else {
                return
            }
            startListening(to: link.client)
            let response = try await requestJoin(on: link.client, parameters: parameters, sessionId: sessionId)
            await onQueue { [self] in step(.resumeAnswered(response, on: link, attempt: attempt)) }
        } catch {
            context.logger.warning("reconnect attempt \(attempt + 1) failed: \(error)")
            let failed = opened
            await onQueue { [self] in step(.attemptFailed(attempt: attempt, link: failed, error: error)) }
        }
    }
}
