/// Where two full-page snapshots part, told from their rows (one signature a row, equal rows
/// equal signatures): the first row that differs, the vertical shift that lines up the most of
/// what follows (content pushed down by a taller header moves every later row, so a box around
/// every differing pixel spans the whole page), the first rows that still differ once shifted,
/// and where each snapshot's content ends (above its trailing rows equal to its bottom row: its
/// background, or the inside of a box cut off at the bottom). Pure; rows
/// are counted from 0 at the top, in snapshot pixels.
public struct RowAlignment: Sendable, Equatable {
    /// Rows `top..<bottom`.
    public struct Band: Sendable, Equatable {
        public var top: Int, bottom: Int
        public init(top: Int, bottom: Int) { (self.top, self.bottom) = (top, bottom) }
    }

    /// The first row that differs (nil: none does, and the heights are the same).
    public var firstDifference: Int?
    /// How far the current snapshot's rows moved from there, px (positive: down).
    public var shift: Int
    /// In the baseline's rows, the first band that still differs once the current snapshot is
    /// shifted back (nil: none, or no shift).
    public var differsAfterShift: Band?
    /// Where the content ends: the row below the last one that is not the background (the
    /// colour of the bottom row).
    public var baselineContentEnd: Int
    public var currentContentEnd: Int

    /// The largest shift looked for, px.
    public static let maxShift = 4000

    public init(baseline: [UInt64], current: [UInt64]) {
        baselineContentEnd = Self.contentEnd(baseline)
        currentContentEnd = Self.contentEnd(current)
        let common = min(baseline.count, current.count)
        guard let first = (0..<common).first(where: { baseline[$0] != current[$0] })
                ?? (baseline.count == current.count ? nil : common) else {
            (firstDifference, shift, differsAfterShift) = (nil, 0, nil)
            return
        }
        firstDifference = first
        shift = Self.bestShift(baseline, current, from: first)
        differsAfterShift = shift == 0 ? nil : Self.firstBand(baseline, current, shift: shift, from: first)
    }

    /// The offset `current` row minus `baseline` row that most rows from `from` on agree on:
    /// each baseline row that occurs once in the baseline votes for where it occurs in the
    /// current snapshot (rows repeated everywhere, such as background, say nothing).
    static func bestShift(_ baseline: [UInt64], _ current: [UInt64], from: Int) -> Int {
        var counts: [UInt64: Int] = [:]
        for row in baseline[from...] { counts[row, default: 0] += 1 }
        var positions: [UInt64: Int] = [:]
        var repeated: Set<UInt64> = []
        for (index, row) in current.enumerated() where index >= max(0, from - maxShift) {
            if positions[row] != nil { repeated.insert(row) } else { positions[row] = index }
        }
        var votes: [Int: Int] = [:]
        for y in from..<baseline.count where counts[baseline[y]] == 1 && !repeated.contains(baseline[y]) {
            guard let at = positions[baseline[y]], abs(at - y) <= maxShift else { continue }
            votes[at - y, default: 0] += 1
        }
        return votes.max { $0.value != $1.value ? $0.value < $1.value : abs($0.key) > abs($1.key) }?.key ?? 0
    }

    /// The first band of baseline rows, past the rows the shift inserted or removed, that
    /// differs from the current snapshot's rows `shift` below; where the current snapshot ends
    /// first (a clip), the baseline's rows from there to its end.
    static func firstBand(_ baseline: [UInt64], _ current: [UInt64], shift: Int, from: Int) -> Band? {
        let start = shift < 0 ? from - shift : from
        let end = min(baseline.count, current.count - shift)
        let tail = end < baseline.count ? Band(top: max(end, 0), bottom: baseline.count) : nil
        guard start < end else { return tail }
        guard let top = (start..<end).first(where: { baseline[$0] != current[$0 + shift] }) else { return tail }
        let bottom = (top..<end).first(where: { baseline[$0] == current[$0 + shift] }) ?? end
        return Band(top: top, bottom: bottom)
    }

    static func contentEnd(_ rows: [UInt64]) -> Int {
        guard let background = rows.last else { return 0 }
        return (rows.lastIndex { $0 != background } ?? -1) + 1
    }
}
