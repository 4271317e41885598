import Testing
@testable import SRTCServer

/// The limits an operator tunes (README, "Configuration"): each from a flag, a variable or the file.
@Suite struct LimitSettingsTests {
    @Test func everyLimitHasItsDocumentedDefault() throws {
        let c = try ServerConfig.load(arguments: [], environment: [:])
        #expect(c.http.maxConnections == 10_000 && c.http.maxConnectionsPerAddress == 256)
        #expect(c.http.headerTimeoutSeconds == 10 && c.http.idleTimeoutSeconds == 60)
        #expect(c.http.maxRequestLineBytes == 8192 && c.http.maxHeaderBytes == 16384 && c.http.maxHeaderCount == 100)
        #expect(c.nonceCacheCapacity == 4_000_000)
        #expect(c.limits.tokenLeewaySeconds == 5)
        #expect(c.limits.joinsPerSecond == 20 && c.limits.userJoinsPerSecond == 1 && c.limits.addressJoinsPerSecond == 20)
    }

    @Test func limitsAreSetByFlagVariableAndFile() throws {
        let c = try ServerConfig.load(arguments: [
            "--max-connections", "500", "--max-connections-per-address", "0", "--header-timeout-seconds", "3",
            "--idle-timeout-seconds", "15", "--max-request-line-bytes", "4096", "--max-header-bytes=32768",
            "--max-header-count", "50", "--nonce-cache-capacity", "1000", "--token-leeway-seconds", "0",
            "--user-joins-per-second", "0",
        ], environment: ["SRTC_ADDRESS_JOINS_PER_SECOND": "100"])
        #expect(c.http.maxConnections == 500 && c.http.maxConnectionsPerAddress == 0)
        #expect(c.http.headerTimeoutSeconds == 3 && c.http.idleTimeoutSeconds == 15)
        #expect(c.http.maxRequestLineBytes == 4096 && c.http.maxHeaderBytes == 32768 && c.http.maxHeaderCount == 50)
        #expect(c.nonceCacheCapacity == 1000 && c.limits.tokenLeewaySeconds == 0)
        #expect(c.limits.userJoinsPerSecond == 0 && c.limits.addressJoinsPerSecond == 100)
    }

    @Test func outOfRangeLimitsAreRefused() {
        #expect(throws: ConfigError.invalidValue("token-leeway-seconds", "301")) {
            try ServerConfig.load(arguments: ["--token-leeway-seconds", "301"], environment: [:])
        }
        #expect(throws: ConfigError.invalidValue("max-connections", "0")) {
            try ServerConfig.load(arguments: ["--max-connections", "0"], environment: [:])
        }
        #expect(throws: ConfigError.invalidValue("max-connections-per-address", "-1")) {
            try ServerConfig.load(arguments: ["--max-connections-per-address", "-1"], environment: [:])
        }
    }
}
