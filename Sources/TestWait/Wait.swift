/// Waiting for a condition in tests, instead of sleeping a fixed time and hoping the system was
/// fast enough (a loaded machine makes blind sleeps flaky; a fast one makes them slow). Every test
/// target uses these; a wait ends as soon as its condition holds and fails with a clear message
/// at its deadline.

/// How long a test waits for what happens at once on an idle machine (a loopback connect, an
/// answer, an event): long enough that only a hang fails it. At the start of `swift test` every
/// suite starts together on two cores and the cooperative pool can be busy for seconds, so a 10 s
/// deadline may pass on a loaded machine although nothing is wrong.
public let hangTimeout: Duration = .seconds(60)

/// A condition that did not hold before its deadline.
public struct WaitTimeout: Error, CustomStringConvertible {
    public let description: String
}

/// Polls `condition` every `poll` until it is true; throws `WaitTimeout` after `timeout` seconds.
/// - Parameter what: names the condition in the failure (evaluated then, so it may show state).
public func eventually(timeout: Double = 60, _ what: @autoclosure () -> String = "the condition",
                       poll: Duration = .milliseconds(10), _ condition: () async throws -> Bool) async throws {
    _ = try await waitFor(timeout: timeout, what(), poll: poll) { try await condition() ? true : nil }
}

/// Polls `value` every `poll` until it returns non-nil, and returns that; throws `WaitTimeout`
/// after `timeout` seconds.
public func waitFor<T>(timeout: Double = 60, _ what: @autoclosure () -> String = "the value",
                       poll: Duration = .milliseconds(10), _ value: () async throws -> T?) async throws -> T {
    let deadline = ContinuousClock.now + .milliseconds(Int64(timeout * 1000))
    while true {
        if let found = try await value() { return found }
        guard ContinuousClock.now < deadline else { throw WaitTimeout(description: "timed out after \(timeout) s waiting for \(what())") }
        try await Task.sleep(for: poll)
    }
}

/// Whether `condition` comes to hold within `timeout` seconds (polled every `poll`), for `#expect`.
public func holds(within timeout: Double = 60, poll: Duration = .milliseconds(10),
                  _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int64(timeout * 1000))
    while true {
        if try await condition() { return true }
        guard ContinuousClock.now < deadline else { return false }
        try? await Task.sleep(for: poll)
    }
}

/// Waits until `count` has stopped changing for `quiet` (traffic drained: nothing in flight any
/// more), for when no single event marks the end. Throws `WaitTimeout` if it never settles.
public func waitUntilSettled(_ what: @autoclosure () -> String = "the count to settle", quiet: Duration = .milliseconds(200),
                             timeout: Double = 60, _ count: () -> Int) async throws {
    let deadline = ContinuousClock.now + .milliseconds(Int64(timeout * 1000))
    var last = count(), since = ContinuousClock.now
    while ContinuousClock.now - since < quiet {
        guard ContinuousClock.now < deadline else { throw WaitTimeout(description: "timed out after \(timeout) s waiting for \(what())") }
        try await Task.sleep(for: .milliseconds(10))
        let now = count()
        if now != last { last = now; since = ContinuousClock.now }
    }
}
