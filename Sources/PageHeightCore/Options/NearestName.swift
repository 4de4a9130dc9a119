/// The known name a misspelt one most likely meant (`--widht` → `--width`, `widht` → `width`):
/// the nearest by edit distance (a swap of two neighbours counts as one edit), when it is at
/// most 2 edits away and nearer than any other. Pure.
public enum NearestName {
    public static func suggestion(for name: String, among known: [String]) -> String? {
        let distances = Set(known).filter { $0 != name }.map { ($0, distance(name, $0)) }
        guard let best = distances.map(\.1).min(), best <= min(2, max(1, name.count / 2)) else { return nil }
        let nearest = distances.filter { $0.1 == best }.map(\.0).sorted()
        return nearest.count == 1 ? nearest[0] : nil
    }

    /// ` (did you mean '--width'?)`, or nothing.
    public static func hint(for name: String, among known: [String]) -> String {
        suggestion(for: name, among: known).map { " (did you mean '\($0)'?)" } ?? ""
    }

    /// Optimal string alignment distance: insertions, deletions, substitutions and swaps of
    /// neighbours, each one edit.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var rows = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { rows[i][0] = i }
        for j in 0...b.count { rows[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                rows[i][j] = min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    rows[i][j] = min(rows[i][j], rows[i - 2][j - 2] + 1)
                }
            }
        }
        return rows[a.count][b.count]
    }
}

extension UsageError {
    /// `unknown option '--widht' (did you mean '--width'?)`.
    public static func unknownOption(_ name: String, known: [String]) -> UsageError {
        UsageError("unknown option '\(name)'" + NearestName.hint(for: name, among: known))
    }
}

extension MeasuringOption {
    /// Every spelling of every measuring option (`--fit` and `--no-fit` both).
    public static var allSwitches: [String] { all.flatMap(\.switches) }
}
