import Foundation
@testable import SRTCCore
import SRTCLab
import SRTCProtocol
import SRTCTestSupport
import TestWait
import Testing

/// A client's own network changing mid-call (docs/network.md, "Addresses that change"): the
/// mobile client of a `LabMobileCall` moves to a new address (the old one removed, as a phone
/// leaving Wi-Fi for cellular), or loses its link for 10 s. Its SDK notices the move (the local
/// address toward the server changed), resumes its signaling session from the new address and
/// restarts ICE on both transports; the server selects the new address. Frame numbers go on in
/// both directions, and the other participant never sees the mobile leave. Each test prints how
/// long media stopped.
@Suite(.serialized, .enabled(if: NetworkLab.isAvailable, "needs root for ip netns"))
struct NetworkLabAddressTests {
    @Test func aClientWhoseAddressChangesKeepsItsCallAndMediaComesBack() async throws {
        try await withMobileCall { call in
            try await call.waitForMediaBothWays()
            let (old, new, figures) = try await Self.move(call)
            print("network lab, address change \(old) → \(new):\n  \(figures)")
            figures.expectSameSession()
        }
    }

    /// The mobile sends all its media through coturn (relay only). Its allocations belong to
    /// its old address: after the move its ICE restart finds them gone (a Refresh answered 437
    /// Allocation Mismatch) and allocates again from the new address.
    @Test func aRelayedClientWhoseAddressChangesAllocatesAgainAndKeepsItsCall() async throws {
        try await withMobileCall(relayed: true) { call in
            let coturn = try #require(call.coturn)
            try await call.waitForMediaBothWays()
            let allocationsBefore = Self.allocations(coturn)
            #expect(allocationsBefore >= 2, "both transports through the relay: \(coturn.log.suffix(800))")
            let (old, new, figures) = try await Self.move(call)
            let allocationsAfter = Self.allocations(coturn)
            print("network lab, a relayed client's address change \(old) → \(new) (coturn allocations \(allocationsBefore) → \(allocationsAfter)):\n  \(figures)")
            figures.expectSameSession()
            #expect(allocationsAfter >= allocationsBefore + 2, "new allocations from the new address: \(coturn.log.suffix(1200))")
            #expect(coturn.log.contains("REFRESH processed, error 437"), "the old allocations were refused from the new address")
        }
    }

    /// Moves the mobile to a new address 2 s into a call whose media flows, and returns what both
    /// sides saw once each decoded 30 frames more.
    static func move(_ call: LabMobileCall) async throws -> (old: String, new: String, figures: Figures) {
        try await Task.sleep(for: .seconds(2))
        let movedAt = call.observer.elapsed
        let old = call.lab.clientAddress(call.client)
        let new = try call.lab.moveClient(call.client)
        try await call.waitForProgress(after: movedAt, frames: 30, timeout: 20)
        try await Task.sleep(for: .seconds(1))
        return (old, new, Figures(call, since: movedAt, from: movedAt))
    }

    /// Allocations coturn granted (its verbose log names each successful ALLOCATE).
    static func allocations(_ coturn: TestCoturn) -> Int {
        coturn.log.components(separatedBy: "\n").filter { $0.contains("ALLOCATE processed, success") }.count
    }

    @Test func aCallResumesAfterTheClientsLinkIsDownFor10Seconds() async throws {
        try await withMobileCall { call in
            try await call.waitForMediaBothWays()
            try await Task.sleep(for: .seconds(2))
            let downAt = call.observer.elapsed
            try call.lab.setClientLink(call.client, up: false)
            try await Task.sleep(for: .seconds(10))
            let upAt = call.observer.elapsed
            try call.lab.setClientLink(call.client, up: true)
            try await call.waitForProgress(after: upAt, frames: 30, timeout: 20)
            try await Task.sleep(for: .seconds(1))
            let figures = Figures(call, since: downAt, from: upAt)
            print("network lab, the mobile's link down 10 s, then up:\n  \(figures)")
            figures.expectSameSession()
        }
    }

    /// What the two sides saw since the network changed (`since`): the longest time without a
    /// new frame, and when frames came again counted `from` the moment media could flow (the
    /// move, or the link coming back).
    struct Figures: CustomStringConvertible {
        var toPeer: (start: Double, end: Double)
        var toMobile: (start: Double, end: Double)
        var from: Double
        /// Frame numbers decoded before `since` and new ones after `from`, each side.
        var peerNumbers: (before: [Int], after: [Int])
        var mobileNumbers: (before: [Int], after: [Int])
        var peerMembership: [String]
        var mobileEvents: [String]

        init(_ call: LabMobileCall, since: Double, from: Double) {
            self.from = from
            let to = call.observer.elapsed
            toPeer = longestStall(call.observer.numbers, from: since, to: to)
            toMobile = longestStall(call.mobile.peerNumbers, from: since, to: to)
            let (toPeer, toMobile) = (toPeer, toMobile)
            peerNumbers = (call.observer.numbers.filter { $0.time <= since }.map(\.number), Figures.newNumbers(call.observer.numbers, after: from))
            mobileNumbers = (call.mobile.peerNumbers.filter { $0.time <= since }.map(\.number), Figures.newNumbers(call.mobile.peerNumbers, after: from))
            peerMembership = call.observer.membership.map { "\(fmt($0.time)) \($0.event)" }
            mobileEvents = call.mobile.events.map { "\(fmt($0.time)) \($0.text)" }
        }

        var description: String {
            """
            mobile → peer: the longest time without a new frame \(fmt(toPeer.end - toPeer.start)) s, ending \(fmt(toPeer.end - from)) s after
              peer → mobile: the longest time without a new frame \(fmt(toMobile.end - toMobile.start)) s, ending \(fmt(toMobile.end - from)) s after (0.1 s status lines)
              the peer was told: \(peerMembership)
              the mobile printed: \(mobileEvents)
            """
        }

        /// The numbers decoded after `from` that are newer than the last one decoded by then. Not
        /// "after the longest stall": when a move barely interrupts media, the longest gap can be
        /// a jitter gap of 0.1 s just before the end, with two frames after it. The mobile's
        /// numbers are 0.1 s status lines that repeat the last number while nothing arrives: only
        /// a number above the one shown at `from` is a frame that came through the new path.
        private static func newNumbers(_ samples: [(time: Double, number: Int)], after from: Double) -> [Int] {
            let shown = samples.last { $0.time <= from }?.number ?? Int.min
            return samples.filter { $0.time > from && $0.number > shown }.map(\.number)
        }

        /// Same session throughout: nobody left or joined again, nothing was disconnected, and
        /// the frame numbers went on from where they were.
        func expectSameSession() {
            #expect(!peerMembership.contains { $0.hasSuffix("left m") }, "the peer saw the mobile leave: \(peerMembership)")
            #expect(peerMembership.filter { $0.hasSuffix("joined m") }.count <= 1, "the mobile joined again: \(peerMembership)")
            #expect(!mobileEvents.contains { $0.contains(" left") || $0.contains("disconnected") }, "\(mobileEvents)")
            for (side, numbers) in [("mobile → peer", peerNumbers), ("peer → mobile", mobileNumbers)] {
                #expect(numbers.after.count >= 5, "\(side): \(numbers.after.count) frames after")
                #expect((numbers.after.min() ?? 0) > (numbers.before.max() ?? .max), "\(side): the numbers did not go on")
            }
            #expect(peerNumbers.after.allSatisfy { $0 >= LabMobileCall.mobileFirstNumber })
        }
    }
}

/// Runs `body` on a new mobile call and ends the call whether it passed or threw.
private func withMobileCall(relayed: Bool = false, _ body: (LabMobileCall) async throws -> Void) async throws {
    let call = try await LabMobileCall(relayed: relayed)
    do {
        try await body(call)
        await call.end()
    } catch {
        // Its events and warnings, then its last status lines.
        let output = call.mobile.output
        let notes = output.filter { !$0.text.hasPrefix(" ") && !$0.text.hasPrefix("--") } + output.suffix(6)
        print("the peer was told: \(call.observer.membership)\nthe mobile client printed:\n"
            + notes.map { "  \(fmt($0.time)) \($0.text)" }.joined(separator: "\n"))
        if let coturn = call.coturn { print("coturn's log:\n" + coturn.log.suffix(6000)) }
        await call.end()
        throw error
    }
}
