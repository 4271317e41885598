import Foundation

/// Polls `condition` until it holds or `timeout` passes (tests wait for a condition with a
/// deadline rather than sleeping and hoping).
public func eventually(timeout: Double = 10, _ what: @autoclosure () -> String = "condition",
                       _ condition: () async throws -> Bool) async throws {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(20))
    }
    throw TestSignalClient.Failure(description: "timed out waiting for \(what())")
}
