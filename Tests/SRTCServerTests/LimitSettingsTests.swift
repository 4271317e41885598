import Testing
@testable import SRTCServer

/// The limits an operator tunes (README, "Configuration"): each from a flag, a variable or the file.
@Suite struct LimitSettingsTests {
    @Test func everyLimitHasItsDocumentedDefault() throws {
        let c = try ServerConfig.load(arguments: [], environment: [:])
        #expect(c.maxConnections == 10_000 && c.maxConnectionsPerAddress == 256)
        #expect(c.headerTimeoutSeconds == 10 && c.idleTimeoutSeconds == 60)
        #expect(c.maxRequestLineBytes == 8192 && c.maxHeaderBytes == 16384 && c.maxHeaderCount == 100)
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
        #expect(c.maxConnections == 500 && c.maxConnectionsPerAddress == 0)
        #expect(c.headerTimeoutSeconds == 3 && c.idleTimeoutSeconds == 15)
        #expect(c.maxRequestLineBytes == 4096 && c.maxHeaderBytes == 32768 && c.maxHeaderCount == 50)
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
