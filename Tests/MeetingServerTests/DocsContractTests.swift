import EgressServer
import Foundation
import IMServer
import MeetingServer
import SMeetingProtocol
import SRTCProtocol
import SRTCServer
import Testing

/// The docs are a contract: independent clients are written from `docs/` alone. These checks
/// compare what the code registers, parses and sends with what the docs name, both ways, so a
/// route, message type, error code, flag or default added (or renamed) on one side only fails here.
@Suite struct DocsContractTests {
    // MARK: - Routes

    @Test func everyRouteIsInOpenAPIAndServerAPIAndBack() async throws {
        var config = ServerConfig()
        config.dataDir = ":memory:"
        config.demoAuth = .loopback  // registers the demo sign-in route, documented as optional
        let app = try ServerApp(config: config, modules: [IMModule.factory, MeetingModule.factory, EgressModule.factory])
        let routes = Set(app.router.routeNames)
        let webSocketPaths = app.modules.flatMap(\.webSocketPaths)
        await app.shutdown()

        #expect(routes.count > 20, "the router was not read: \(routes)")
        let openAPI = DocText.openAPIOperations()
        #expect(routes.subtracting(openAPI).sorted() == [], "registered but not in docs/openapi.yaml")
        #expect(openAPI.subtracting(routes).sorted() == [], "in docs/openapi.yaml but not registered")

        let serverAPI = DocText.read("docs/server-api.md")
        let missing = routes.filter { route in
            let path = route.split(separator: " ")[1]
            return !serverAPI.contains("`\(route)`") && !serverAPI.contains("| `\(path)` |")
        }
        #expect(missing.sorted() == [], "registered but not in docs/server-api.md")

        let allDocs = DocText.allDocs()
        for path in webSocketPaths { #expect(allDocs.contains("ws://HOST:7880\(path)"), "WebSocket \(path) has no Connecting section") }
    }

    // MARK: - Error codes

    @Test func serverAPIErrorTableIsTheEnum() {
        let rows = DocText.tableRows(DocText.read("docs/server-api.md"), header: "code")
        let documented = Dictionary(rows.map { ($0[0], $0) }, uniquingKeysWith: { a, _ in a })
        for code in APIErrorCode.allCases {
            let row = documented["\(code.rawValue)"]
            #expect(row?[1] == "\(code.httpStatus)" && row?[2] == "`\(code.name)`", "docs/server-api.md row of \(code.rawValue) \(code.name)")
        }
        #expect(Set(documented.keys) == Set(APIErrorCode.allCases.map { "\($0.rawValue)" }))

        let openAPI = DocText.read("docs/openapi.yaml")
        let enumLine = openAPI.split(separator: "\n").first { $0.contains("enum: [40001") }.map(String.init) ?? ""
        let listed = Set(enumLine.matches(of: /\d{5}/).map { Int($0.output)! })
        #expect(listed == Set(APIErrorCode.allCases.map(\.rawValue)), "docs/openapi.yaml Error.code enum")
        for code in APIErrorCode.allCases { #expect(openAPI.contains("\(code.rawValue) \(code.name)"), "openapi.yaml's code description lacks \(code.name)") }
    }

    @Test func meetingErrorTableIsTheEnum() {
        let documented = DocText.codeTable(DocText.read("docs/meeting-protocol.md"))
        let expected = Dictionary(uniqueKeysWithValues: MeetingErrorCode.allCases.map { ($0.rawValue, $0.name) })
        #expect(documented == expected)
    }

    @Test func imErrorTableUsesServerCodes() {
        let documented = DocText.codeTable(DocText.read("docs/im.md"))
        #expect(documented.count > 5)
        for (code, name) in documented { #expect(APIErrorCode(rawValue: code)?.name == name, "docs/im.md: \(code) \(name)") }
    }

    /// Wherever prose pairs a name with a number (`` `wrong_state` (40901) ``, `40311 policy_forbidden`),
    /// the pair is one of the code's.
    @Test func everyNamedCodeInTheDocsIsReal() {
        var wrong: [String] = []
        for (file, text) in DocText.allDocFiles() {
            let pairs = text.matches(of: /`?\.?([a-z]+(?:_[a-z]+)+)`?\s\(?(\d{5})\b/).map { (String($0.output.1), Int($0.output.2)!) }
                + text.matches(of: /\b(\d{5})\)?\s`?([a-z]+(?:_[a-z]+)+)\b/).map { (String($0.output.2), Int($0.output.1)!) }
            for (name, code) in pairs where APIErrorCode(rawValue: code)?.name != name && MeetingErrorCode(rawValue: code)?.name != name {
                wrong.append("\(file): \(name) \(code)")
            }
        }
        #expect(wrong == [])
    }

    // MARK: - Message types

    @Test func signalingTypesAreDocumentedAndBack() throws {
        // The codec's names, written once (its tables, `ClientRequest.Body.table` and `ServerEvent.table`).
        let parsed = Set(SignalCodec.requestTypes + SignalCodec.eventTypes)
        let protocolDoc = DocText.read("docs/protocol.md")
        let requestSection = DocText.section(protocolDoc, "## Requests")
        let requests = requestSection.matches(of: /^### (.+)$/.anchorsMatchLineEndings()).flatMap { DocText.backticked(String($0.output.1)) }
        let events = DocText.tableRows(protocolDoc, header: "type").flatMap { DocText.backticked($0[0]) }
        #expect(parsed.subtracting(requests + events).sorted() == [], "parsed or sent but not in docs/protocol.md")
        #expect(Set(requests + events).subtracting(parsed).sorted() == [], "in docs/protocol.md but not in SignalCodec")
    }

    @Test func meetingTypesAreDocumentedAndBack() {
        let documented = Set(DocText.tableRows(DocText.read("docs/meeting-protocol.md"), header: "type").flatMap { DocText.backticked($0[0]) })
        let code = Set(MeetingRequestType.allCases.map(\.rawValue) + MeetingEventType.allCases.map(\.rawValue))
        #expect(code.subtracting(documented).sorted() == [], "not in docs/meeting-protocol.md")
        #expect(documented.subtracting(code).sorted() == [], "documented but not a meeting type")
    }

    @Test func imTypesAndKindsAreDocumentedAndBack() {
        let doc = DocText.read("docs/im.md")
        let requests = Set(DocText.tableRows(doc, header: "type").flatMap { DocText.backticked($0[0]) })
        #expect(requests == Set(IMRequestType.allCases.map(\.rawValue)))
        for event in IMEventType.allCases { #expect(doc.contains(#"{"type": "\#(event.rawValue)""#)) }
        let kinds = DocText.tableRows(doc, header: "field").first { $0[0] == "`kind`" }.map { DocText.backticked($0[1]) } ?? []
        #expect(Set(kinds) == Set(IMMessageKind.allCases.map(\.rawValue)))
    }

    /// The ops of `POST /server/v1/cluster/edge` are the same in the code, docs/server-api.md's
    /// table and docs/openapi.yaml's `EdgeCall` schema.
    @Test func edgeCallOpsAreDocumentedAndBack() throws {
        let source = try DocText.source("Sources/SRTCServer/Cluster/EdgeCall.swift")
        let body = try #require(source.firstMatch(of: /enum Op: String[^{]*\{([^}]*)\}/)?.output.1)
        let code = Set(String(body).matches(of: /^\s*case ([a-z]+)$/.anchorsMatchLineEndings()).map { String($0.output.1) })
        #expect(code.count > 8, "EdgeCall.Op was not read")
        let table = Set(DocText.tableRows(DocText.read("docs/server-api.md"), header: "op").flatMap { DocText.backticked($0[0]) })
        #expect(table == code, "docs/server-api.md's op table")
        let openAPI = DocText.read("docs/openapi.yaml")
        let line = try #require(openAPI.split(separator: "\n").first { $0.contains("op: {type: string, enum: [") })
        let listed = Set(String(line).matches(of: /[a-z]+/).map { String($0.output) }).subtracting(["op", "type", "string", "enum"])
        #expect(listed == code, "docs/openapi.yaml's EdgeCall op enum")
    }

    /// The tables the checks above read render as written.
    @Test func tablesKeepTheirColumns() {
        #expect(DocText.pipesInCodeSpans() == [])
    }

    // MARK: - Flags and limits

    /// `srtc-server --help` and README's configuration table list the same flags, variables and defaults.
    @Test func serverFlagsAreInTheReadme() {
        let readme = DocText.read("README.md")
        var documented: [String: (env: String, defaultCell: String)] = [:]
        for row in DocText.tableRows(readme, header: "flag") {
            for (flag, env) in zip(DocText.codeSpans(row[0]), DocText.codeSpans(row[1])) { documented[flag] = (env, row[2]) }
        }
        var help: Set<String> = []
        for line in ServerConfig.usage.split(separator: "\n") {
            guard let m = line.firstMatch(of: /^  (--[a-z-]+)\s+\[(\w+)\] (.*)$/), m.output.1 != "--config" else { continue }
            let flag = String(m.output.1)
            help.insert(flag)
            #expect(documented[flag]?.env == String(m.output.2), "README row of \(flag)")
            if let value = m.output.3.firstMatch(of: /\(default ([\w.\/]+)\)/)?.output.1 {
                let cell = documented[flag]?.defaultCell
                #expect(cell == String(value) || cell?.contains("`\(value)`") == true, "README default of \(flag): \(value)")
            }
        }
        #expect(help.count > 30, "the usage text was not read")
        #expect(Set(documented.keys).subtracting(help).sorted() == [], "in README but not a flag of srtc-server")
        #expect(readme.contains("--config FILE") && readme.contains("SRTC_CONFIG"))
    }

    @Test func limitTablesShowTheDefaults() {
        let limits = ChannelLimits()
        let signaling = DocText.secondColumn(DocText.read("docs/protocol.md"), header: "limit")
        #expect(signaling["users per channel"] == "\(limits.maxUsersPerChannel)")
        #expect(signaling["tracks per user"] == "\(limits.maxTracksPerUser)")
        #expect(signaling["signaling message"] == "\(limits.maxSignalMessageBytes / 1024) KiB")
        #expect(signaling["custom message `data`"] == "\(limits.maxCustomMessageBytes / 1024) KiB")
        #expect(signaling["profile `custom` / channel `metadata`"] == "\(limits.maxCustomDataBytes / 1024) KiB")
        #expect(signaling["joins per channel per second"] == "\(limits.joinsPerSecond)")
        let userBurst = limits.userJoinsPerSecond * ChannelLimits.userJoinBurstSeconds
        #expect(signaling["joins of one uid in one channel"]?.hasPrefix("\(userBurst) at once, then \(limits.userJoinsPerSecond) per second") == true)
        #expect(signaling["joins from one IP address, any channel, resumes included"]
                == "\(limits.addressJoinsPerSecond) at once, then \(limits.addressJoinsPerSecond) per second")
        #expect(signaling["token clock skew (`exp`, `nbf`)"] == "\(limits.tokenLeewaySeconds) s")

        let im = IMSettings()
        let imRows = DocText.secondColumn(DocText.read("docs/im.md"), header: "limit")
        #expect(imRows["`content` size"] == "\(im.maxContentBytes) bytes")
        #expect(imRows["entries kept per uid"] == "\(im.mailboxSize)")
        #expect(imRows["entry lifetime"] == "\(im.retentionSeconds / 86400) days")
        #expect(imRows["requests per session"] == "\(im.requestsPerSecond) per second")
        #expect(imRows["reminder lead time"]?.hasPrefix("\(im.meetingReminderSeconds) s") == true)
        #expect(imRows["reminder scan interval"] == "\(im.meetingReminderScanSeconds) s")
    }
}
