import Foundation
import RTCNet
import Synchronization
import Testing

/// `CallbackSlot` and the rule behind it: a stored callback costs the same on every call (issue #8).
@Suite struct CallbackSlotTests {
    /// Frames on the calling thread's stack, up to Foundation's cap of 128 (enough to see growth:
    /// the stored-in-a-Mutex closure grew by two thunks per access). Return addresses only: no
    /// symbolication, so the loops below stay cheap.
    static func stackDepth() -> Int { Thread.callStackReturnAddresses.count }

    @Test func callingTheStoredCallbackNeverDeepensTheStack() {
        // (measure?, depth): the callback looks at the stack only when asked to.
        let probe = Mutex<(measure: Bool, depth: Int)>((false, 0))
        let slot = CallbackSlot<@Sendable () -> Void>()
        slot.set { probe.withLock { if $0.measure { $0.depth = Self.stackDepth() } } }
        func call(measuring: Bool) -> Int {
            probe.withLock { $0.measure = measuring }
            slot.function?()
            return probe.withLock { $0.depth }
        }
        for _ in 0..<9 { _ = call(measuring: false) }
        let early = call(measuring: true)
        for _ in 10..<9_999 { _ = call(measuring: false) }
        let late = call(measuring: true)
        #expect(early < 100)
        #expect(late == early)
    }

    @Test func setReplacesAndNilClears() {
        let slot = CallbackSlot<@Sendable (Int) -> Int>({ $0 + 1 })
        #expect(slot.function?(1) == 2)
        slot.set { $0 * 10 }
        #expect(slot.function?(3) == 30)
        slot.set(nil)
        #expect(slot.function == nil)
    }

    /// The audit as a test: no source file keeps a function (or a tuple holding one) directly as a
    /// `Mutex`'s value, where each access would wrap it again. Arrays and dictionaries of closures
    /// are fine (their elements are always stored at one abstraction), as are structs and classes.
    @Test func noSourceStoresAFunctionDirectlyInAMutex() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Sources").standardizedFileURL
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        var offenders: [String] = []
        var scanned = 0
        for case let url as URL in files where url.pathExtension == "swift" {
            let text = try String(contentsOf: url, encoding: .utf8)
            scanned += 1
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                if line.trimmingPrefix(while: \.isWhitespace).hasPrefix("//") { continue }
                for argument in Self.mutexArguments(in: Substring(line)) where Self.holdsFunctionDirectly(argument) {
                    offenders.append("\(url.lastPathComponent):\(number + 1): Mutex<\(argument)>")
                }
            }
        }
        #expect(scanned > 100)
        #expect(offenders.isEmpty, "use CallbackSlot: \(offenders)")
    }

    @Test func theAuditRecognisesTheBadShapes() {
        let bad = ["private let h = Mutex<(@Sendable () -> Void)?>(nil)",
                   "let gate = Mutex<(@Sendable (ChannelKey, String) async -> Bool)?>(nil)",
                   "let s = Mutex<(count: Int, done: @Sendable () -> Void)>((0, {}))"]
        let good = ["let q = Mutex<[@Sendable () -> Void]>([])", "let s = Mutex<State>(State())",
                    "let m = Mutex<[String: (Int) -> Void]>([:])", "let x = Mutex<(a: Int, b: Bool)>((0, true))"]
        for line in bad { #expect(Self.mutexArguments(in: Substring(line)).contains(where: Self.holdsFunctionDirectly), "\(line)") }
        for line in good { #expect(!Self.mutexArguments(in: Substring(line)).contains(where: Self.holdsFunctionDirectly), "\(line)") }
    }

    /// The generic arguments of each `Mutex<…>` on a line (angle brackets matched, `->` skipped).
    static func mutexArguments(in line: Substring) -> [Substring] {
        var result: [Substring] = []
        var rest = line[...]
        while let range = rest.range(of: "Mutex<") {
            var depth = 1
            var index = range.upperBound
            while index < rest.endIndex, depth > 0 {
                let c = rest[index]
                if c == "<" { depth += 1 }
                if c == ">", index > rest.startIndex, rest[rest.index(before: index)] != "-" { depth -= 1 }
                if depth > 0 { index = rest.index(after: index) }
            }
            result.append(rest[range.upperBound..<index])
            rest = index < rest.endIndex ? rest[rest.index(after: index)...] : ""
        }
        return result
    }

    /// Whether `->` appears outside any `[…]` (collections are safe).
    static func holdsFunctionDirectly(_ argument: Substring) -> Bool {
        var squareDepth = 0
        var previous: Character = " "
        for c in argument {
            if c == "[" { squareDepth += 1 }
            if c == "]" { squareDepth -= 1 }
            if c == ">", previous == "-", squareDepth == 0 { return true }
            previous = c
        }
        return false
    }
}
