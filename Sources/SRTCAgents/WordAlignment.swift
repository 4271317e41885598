/// Compares what was said with what was heard, word by word: recognizers differ in case,
/// punctuation and the odd word, so agents and tests compare words in order, not strings.
public enum WordAlignment {
    /// Lower-case words of `text`, punctuation dropped ("Hello, world!" → ["hello", "world"]).
    public static func words(_ text: String) -> [String] {
        text.lowercased().split { !$0.isLetter && !$0.isNumber && $0 != "'" }.map(String.init)
    }

    /// How many of `expected`'s words appear in `heard` in the same order (the longest common
    /// subsequence of the two word lists).
    public static func wordsInOrder(expected: String, heard: String) -> Int {
        let a = words(expected), b = words(heard)
        guard !a.isEmpty, !b.isEmpty else { return 0 }
        var previous = [Int](repeating: 0, count: b.count + 1)
        var row = previous
        for i in 1...a.count {
            for j in 1...b.count {
                row[j] = a[i - 1] == b[j - 1] ? previous[j - 1] + 1 : max(previous[j], row[j - 1])
            }
            swap(&previous, &row)
        }
        return previous[b.count]
    }

    /// `wordsInOrder` as a fraction of `expected`'s words (0 when it has none).
    public static func fractionInOrder(expected: String, heard: String) -> Double {
        let count = words(expected).count
        return count == 0 ? 0 : Double(wordsInOrder(expected: expected, heard: heard)) / Double(count)
    }
}
