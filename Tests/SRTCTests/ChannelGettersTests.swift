import Dispatch
import Foundation
import SRTCProtocol
import Synchronization
import Testing
@testable import SRTCCore

/// Reads the channel's getters inside `userDidJoin`, then says so.
final class GetterReadingDelegate: ChannelDelegate, @unchecked Sendable {
    let seen = Mutex<[String]>([])
    let done = DispatchSemaphore(value: 0)

    func channel(_ channel: Channel, userDidJoin user: UserInfo) {
        let users = channel.users.map(\.uid)
        let found = channel.user(uid: user.uid) != nil
        seen.withLock { $0 = users + [found ? "found" : "missing", "\(channel.connectionState)"] }
        done.signal()
    }
}

/// The channel's public getters read a copy of its state that its queue publishes after each
/// change (`Snapshot`): they never wait for the queue, so an app thread the queue is waiting on
/// can call them. With `queue.sync` each of these would deadlock (here: time out).
@Suite struct ChannelGettersTests {
    let delegateQueue = DispatchQueue(label: "test.getters.delegates")

    @Test func aGetterOnAThreadTheQueueWaitsForReturns() throws {
        let channel = try SRTCEngine(independent: .init(delegateQueue: delegateQueue)).createChannel()
        let blocked = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        channel.queue.async {
            blocked.signal()
            release.wait()  // the queue waits for the reader below
        }
        blocked.wait()
        let reader = GetterReadingDelegate()  // only its `seen` and `done`
        Thread {
            let read = ["\(channel.connectionState)", "\(channel.users.count)", "\(channel.remoteTracks.count)",
                        "\(channel.isJoined)", "\(channel.info == nil)"]
            reader.seen.withLock { $0 = read }
            reader.done.signal()
            release.signal()
        }.start()
        let returned = reader.done.wait(timeout: .now() + 5)
        release.signal()  // lets the queue go even if the reader hung
        #expect(returned == .success)
        #expect(reader.seen.withLock { $0 } == ["disconnected", "0", "0", "false", "true"])
    }

    @Test func aGetterInsideADelegateCallbackTheQueueWaitsForReturnsAndSeesTheChange() async throws {
        let channel = try SRTCEngine(independent: .init(delegateQueue: delegateQueue)).createChannel()
        let delegate = GetterReadingDelegate()
        channel.delegates.add(delegate: delegate)
        let bob = UserInfo(uid: "bob", joinedAt: 5)
        // The queue tells `userDidJoin`, then waits for the callback, which reads the getters.
        let outcome = await channel.onQueue {
            channel.step(.dataEvent(.userJoined(bob)))
            return delegate.done.wait(timeout: .now() + 5) == .success
        }
        #expect(outcome)
        #expect(delegate.seen.withLock { $0 } == ["bob", "found", "disconnected"])
    }

    @Test func aGetterOnTheQueueItselfReturns() async throws {
        let channel = try SRTCEngine(independent: .init(delegateQueue: delegateQueue)).createChannel()
        let seen = await channel.onQueue {
            channel.step(.dataEvent(.userJoined(UserInfo(uid: "carol", joinedAt: 6))))
            return (channel.users.map(\.uid), channel.connectionState, channel.localTracks.count, channel.publishesLocalVideo)
        }
        #expect(seen.0 == ["carol"])
        #expect(seen.1 == .disconnected)
        #expect(seen.2 == 0)
        #expect(seen.3)
    }
}
