import Foundation

/// Reads the repository's docs for `DocsContractTests`: files, markdown tables, sections,
/// backticked names and the operations of `docs/openapi.yaml`.
enum DocText {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL

    /// A file of the repository by its relative path; empty when missing (the checks then fail).
    static func read(_ path: String) -> String {
        (try? String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)) ?? ""
    }

    /// A source file the checks compare with the docs.
    static func source(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// README.md and every file under docs/, by path.
    static func allDocFiles() -> [(String, String)] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)) ?? []
        return (["README.md"] + names.sorted().map { "docs/" + $0 }).map { ($0, read($0)) }
    }

    static func allDocs() -> String { allDocFiles().map(\.1).joined(separator: "\n") }

    /// `METHOD /path` of every operation under `paths:` in docs/openapi.yaml.
    static func openAPIOperations() -> Set<String> {
        var operations: Set<String> = []
        var inPaths = false
        var path: String?
        for line in read("docs/openapi.yaml").split(separator: "\n", omittingEmptySubsequences: false) {
            if !line.hasPrefix(" ") && !line.isEmpty { inPaths = line == "paths:"; continue }
            guard inPaths else { continue }
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            let indent = line.prefix { $0 == " " }.count
            if indent == 2, trimmed.hasPrefix("/"), trimmed.hasSuffix(":") { path = String(trimmed.dropLast()) }
            if indent == 4, let path, ["get:", "post:", "put:", "patch:", "delete:", "options:"].contains(trimmed) {
                operations.insert(trimmed.dropLast().uppercased() + " " + path)
            }
        }
        return operations
    }

    /// The cells of one table row, split as GitHub splits them: on every `|` not escaped `\|`
    /// (code spans do not protect a pipe).
    static func cells(_ row: Substring) -> [String] {
        var cells: [String] = []
        var current = ""
        var previous: Character = " "
        for ch in row.dropFirst() {
            if ch == "|" && previous != "\\" {
                cells.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
            } else {
                current.append(ch)
            }
            previous = ch
        }
        return cells
    }

    /// The body rows of every table whose first header cell is `header`, as many cells as the header.
    static func tableRows(_ text: String, header: String) -> [[String]] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        var rows: [[String]] = []
        var i = 0
        while i + 1 < lines.count {
            let columns = cells(lines[i])
            guard lines[i].hasPrefix("|"), columns.first == header, lines[i + 1].hasPrefix("| ---") else { i += 1; continue }
            i += 2
            while i < lines.count, lines[i].hasPrefix("|") {
                // Short rows are padded, so every row has the header's columns.
                let row = cells(lines[i])
                rows.append(row + Array(repeating: "", count: max(0, columns.count - row.count)))
                i += 1
            }
        }
        return rows
    }

    /// The second cell of every row of the tables headed `header`, by the first.
    static func secondColumn(_ text: String, header: String) -> [String: String] {
        Dictionary(tableRows(text, header: header).map { ($0[0], $0[1]) }, uniquingKeysWith: { first, _ in first })
    }

    /// The text from a heading line to the next heading of the same level.
    static func section(_ text: String, _ heading: String) -> String {
        guard let start = text.range(of: "\n" + heading + "\n") else { return "" }
        let level = heading.prefix { $0 == "#" }
        let rest = text[start.upperBound...]
        let end = rest.range(of: "\n" + level + " ")?.lowerBound ?? rest.endIndex
        return String(rest[..<end])
    }

    /// The snake_case names in backticks within `text` (`` `join` ``, `` `set_layer` ``).
    static func backticked(_ text: String) -> [String] {
        text.matches(of: /`([a-z][a-z0-9_]*)`/).map { String($0.output.1) }
    }

    /// Everything in backticks within `text` (`` `--http-port` ``, `` `SRTC_HTTP_PORT` ``).
    static func codeSpans(_ text: String) -> [String] {
        text.matches(of: /`([^`]+)`/).map { String($0.output.1) }
    }

    /// A `| code | name | when |` error table: `40106 / 40107` rows name each code in order.
    static func codeTable(_ text: String) -> [Int: String] {
        var table: [Int: String] = [:]
        for row in tableRows(text, header: "code") {
            let codes = row[0].split(separator: "/").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            for (code, name) in zip(codes, backticked(row[1])) { table[code] = name }
        }
        return table
    }

    /// Table rows with a `|` inside a code span: GitHub ends the cell there, so the row renders
    /// with its columns shifted. Write `\|`.
    static func pipesInCodeSpans() -> [String] {
        var found: [String] = []
        for (file, text) in allDocFiles() where file.hasSuffix(".md") {
            for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where line.hasPrefix("|") {
                var inside = false
                var previous: Character = " "
                for ch in line {
                    if ch == "`" { inside.toggle() } else if ch == "|", inside, previous != "\\" { found.append("\(file):\(n + 1)"); break }
                    previous = ch
                }
            }
        }
        return found
    }
}
