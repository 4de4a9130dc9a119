import Foundation
import PageHeightCore

/// `replay`'s output: a line per page and a summary, or JSON Lines.
///
/// Times are seconds after the load finished (what a schedule decides); the JSON also gives
/// them since the load started, as reports do.
public enum ReplayTable {
    /// The text: one row per page, then the summary line.
    /// - Parameters:
    ///   - schedule, threshold: what was replayed; nil where each report's own was.
    public static func text(_ replays: [PageReplay], schedule: GrowingDelaySchedule?, threshold: Double?) -> String {
        let names = PageNames.shortened(replays.map(\.url))
        var rows = [["page", "verdict", "shown", "settled", "final at", "jumps the reader sees (size at time)"]]
        for (replay, name) in zip(replays, names) {
            let jumps = replay.jumps.map { "\(Pixels.signed($0.size)) at \(seconds(after: $0.t, replay))" }
            rows.append([
                name,
                replay.verdict.description,
                replay.outcome.height.map(Pixels.format) ?? "nothing",
                replay.settled.map(Pixels.format) ?? "-",
                replay.finalAt.map { seconds(after: $0, replay) } ?? "-",
                jumps.isEmpty ? (replay.outcome.height == nil ? "-" : "none") : jumps.joined(separator: ", "),
            ])
        }
        return TextTable.render(rows) + "\n" + summary(replays, schedule: schedule, threshold: threshold)
    }

    private static func seconds(after t: Double, _ replay: PageReplay) -> String {
        String(format: "%.2f s", t - (replay.loadFinished ?? 0))
    }

    /// e.g. `138 pages, sleeps 0.1,0.2 s (polls at 0.1 0.3 s after load), threshold 5 px: 120 right, ...`.
    public static func summary(_ replays: [PageReplay], schedule: GrowingDelaySchedule?, threshold: Double?) -> String {
        var head = "\(replays.count) page\(replays.count == 1 ? "" : "s"), "
        if let schedule {
            let candidate = TuneCandidate(schedule: schedule, threshold: threshold ?? 0, origin: .given)
            head += "sleeps \(candidate.sleeps) s (polls at \(candidate.pollTimes) s after load)"
        } else {
            head += "each report's own schedule"
        }
        head += threshold.map { ", threshold \(Pixels.format($0))" } ?? (schedule == nil ? " and threshold" : ", each report's own threshold")
        let verdicts = replays.map(\.verdict)
        let clipped = verdicts.compactMap { if case .clipped(let by) = $0 { by } else { nil } }
        let blank = verdicts.compactMap { if case .blank(let by) = $0 { by } else { nil } }
        var parts = ["\(verdicts.filter { if case .right = $0 { true } else { false } }.count) right"]
        parts.append("\(clipped.count) clipped" + (clipped.max().map { " (by up to \(Pixels.format($0)))" } ?? ""))
        parts.append("\(blank.count) with blank space" + (blank.max().map { " (up to \(Pixels.format($0)))" } ?? ""))
        parts.append("\(verdicts.filter { $0.word == "unknown" }.count) unknown")
        var notJudged: [PageStatus: Int] = [:]
        for replay in replays where !replay.verdict.isJudged { notJudged[replay.status, default: 0] += 1 }
        if !notJudged.isEmpty {
            parts.append("\(notJudged.values.reduce(0, +)) not judged (\(statusCounts(notJudged)))")
        }
        return head + ": " + parts.joined(separator: ", ")
    }

    /// One JSON object per page.
    public static func jsonLines(_ replays: [PageReplay]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return replays.map { replay in
            let line = Line(replay)
            return (try? encoder.encode(line)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        }.joined(separator: "\n")
    }

    private struct Line: Encodable {
        struct Jump: Encodable {
            var t: Double
            var afterLoad: Double
            var height: Double
            var size: Double
        }
        var url: String
        var index: Int?
        var status: PageStatus
        var settled: Double?
        package var verdict: String
        var reason: String?
        var error: Double?
        var height: Double?
        var firstShown: Double?
        var jumps: [Jump]
        var finalAt: Double?
        var finalAfterLoad: Double?
        var loadFinished: Double?

        init(_ replay: PageReplay) {
            url = replay.url
            index = replay.index
            status = replay.status
            settled = replay.settled
            verdict = replay.verdict.word
            switch replay.verdict {
            case .unknown(let why), .notJudged(let why): reason = why
            case .right(let error): self.error = round(error, 100)
            default: error = replay.verdict.wrongBy.map { round($0, 100) }
            }
            height = replay.outcome.height
            firstShown = replay.outcome.jumps.first.map { round($0.t, 1000) }
            jumps = replay.jumps.map {
                Jump(t: round($0.t, 1000), afterLoad: round($0.t - (replay.loadFinished ?? 0), 1000), height: $0.height, size: round($0.size, 100))
            }
            finalAt = replay.finalAt.map { round($0, 1000) }
            finalAfterLoad = replay.finalAfterLoad.map { round($0, 1000) }
            loadFinished = replay.loadFinished
        }
    }
}

/// `value` to `1 / scale`.
private func round(_ value: Double, _ scale: Double) -> Double { (value * scale).rounded() / scale }

/// `fallback 3, runaway 2`, in the order of `PageStatus`.
func statusCounts(_ counts: [PageStatus: Int]) -> String {
    PageStatus.allCases.compactMap { status in counts[status].map { "\(status.rawValue) \($0)" } }.joined(separator: ", ")
}
