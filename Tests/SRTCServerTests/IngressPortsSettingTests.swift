import Testing
@testable import SRTCServer

/// `--ingress-ports LOW-HIGH` (README, docs/ingress.md): the ports RTMP and SRT ingress listeners take.
@Suite struct IngressPortsSettingTests {
    @Test func itIsAnyPortUnlessSetByFlagOrVariable() throws {
        #expect(try ServerConfig.load(arguments: [], environment: [:]).egress.ingressPorts == nil)
        #expect(try ServerConfig.load(arguments: ["--ingress-ports", "41935-41999"], environment: [:]).egress.ingressPorts == 41935...41999)
        #expect(try ServerConfig.load(arguments: [], environment: ["SRTC_INGRESS_PORTS": "9000-9000"]).egress.ingressPorts == 9000...9000)
    }

    @Test(arguments: ["", "1935", "2000-1000", "0-10", "1-70000", "a-b", "1-2-3", "-5"])
    func aBadRangeIsRefused(_ value: String) {
        #expect(throws: ConfigError.invalidValue("ingress-ports", value)) {
            try ServerConfig.load(arguments: ["--ingress-ports", value], environment: [:])
        }
    }
}
