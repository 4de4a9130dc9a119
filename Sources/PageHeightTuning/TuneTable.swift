import Foundation
import PageHeightCore

/// `tune`'s text output: what was searched, the Pareto front as a table (the reader app's
/// default below it when it is not on the front), and the recommendation beside the default.
public enum TuneTable {
    /// How many rows of the front the table shows unless asked for all.
    public static let shortFront = 10

    /// - Parameters:
    ///   - family, thresholds: what was searched, for the heading.
    ///   - given: how many `--candidate` schedules were.
    ///   - rows: how many of the front's rows to show (nil: all).
    public static func text(_ result: TuneResult, family: ScheduleFamily, thresholds: [Double], given: Int,
                            rows shown: Int? = shortFront) -> String {
        var lines = heading(result, family: family, thresholds: thresholds, given: given)
        lines.append("")
        let front = shown.map { Array(result.front.prefix($0)) } ?? result.front
        let more = result.front.count - front.count
        lines.append("Pareto front (no candidate has fewer pages wrong or unknown, less wrong height over time, fewer jumps "
            + "and an earlier final height at once)" + (more > 0 ? ", its first \(front.count) of \(result.front.count) rows (--all shows every one):" : ":"))
        var rows = [header]
        for (rank, index) in front.enumerated() {
            rows.append(row(result.scores[index], mark: rank == 0 ? "best" : result.scores[index].candidate.isReaderApp ? "app" : "",
                            alike: result.alike[index] ?? 0))
        }
        if let reader = result.readerApp, !front.contains(reader) {
            rows.append(row(result.scores[reader], mark: result.front.contains(reader) ? "app" : "app*", alike: 0))
        }
        lines.append(TextTable.render(rows, rightAligned: Set(2..<header.count)))
        lines.append("")
        lines += legend(result)
        lines += advice(result)
        return lines.joined(separator: "\n")
    }

    static func legend(_ result: TuneResult) -> [String] {
        var lines = [
            "best: the front's first (fewest pages wrong or unknown, then least wrong height over time in steps of "
                + "\(DecimalText.format(TuneResult.noise.pixelSeconds)) px·s, then fewest jumps, then earliest final height);",
            "app: the reader app's default (app*: not on the front). wrong height: px·s per page, the area between the height "
                + "shown and the page's own",
            "(clipped or blank) until both are final. Times are seconds after load finished. \"(+n)\": n more candidates score the same.",
        ]
        if let cap = result.maxFinal {
            lines.append("--max-final \(DecimalText.format(cap)) s: \(result.pastMaxFinal) candidates that show a final height later are left out.")
        }
        return lines
    }

    public static func heading(_ result: TuneResult, family: ScheduleFamily, thresholds: [Double], given: Int) -> [String] {
        let judged = result.scores.first?.judged ?? result.reports.filter(\.hasSettledHeight).count
        let notJudged = result.notJudged
        var first = "\(result.reports.count) recorded pages: \(judged) with a settled height"
        if !notJudged.isEmpty { first += ", \(notJudged.values.reduce(0, +)) without (\(statusCounts(notJudged)); not judged)" }
        let schedules = Set(result.scores.map(\.candidate.schedule.delays)).count
        let levels = thresholds.map { DecimalText.format($0) }.joined(separator: ", ")
        return [
            first,
            "\(result.scores.count) candidates: \(schedules) schedules (the family: \(describe(family))"
                + (given > 0 ? "; \(given) given" : "") + "; the reader app's) x thresholds \(levels) px"
                + (thresholds.contains(TuneCandidate.readerAppThreshold) ? "" : ", and the reader app's at 5 px"),
            "Wrong: the app ends more than \(Pixels.format(result.tolerance)) from the settled height. "
                + "Unknown: it polls past what the recording holds (never counted as right).",
        ]
    }

    /// e.g. `1-12 polls, first 0.05-1 s, growth x1-x3, last poll 0.5-12 s`.
    static func describe(_ family: ScheduleFamily) -> String {
        func span(_ values: [Double]) -> String {
            guard let low = values.min(), let high = values.max() else { return "-" }
            return low == high ? DecimalText.format(low) : "\(DecimalText.format(low))-\(DecimalText.format(high))"
        }
        return "\(span(family.polls.map(Double.init))) polls, first \(span(family.firstDelays)) s, "
            + "growth x\(span(family.growthFactors)), last poll \(span(family.lastPolls)) s"
    }

    static let header = ["", "sleeps (s)", "polls", "last poll", "threshold", "wrong (clip/blank)", "unknown",
                         "wrong px·s mean/p95", "jumps mean/p95", "final at mean/max"]

    static func row(_ score: CandidateScore, mark: String, alike: Int) -> [String] {
        let candidate = score.candidate
        return [
            mark,
            shortened(candidate.sleeps) + (alike > 0 ? " (+\(alike))" : ""),
            "\(score.polls)",
            DecimalText.format(candidate.schedule.duration) + " s",
            Pixels.format(candidate.threshold),
            "\(score.wrong) (\(score.clipped.count)/\(score.blank.count))",
            "\(score.unknown)",
            score.wrongTime.map { String(format: "%.0f / %.0f", $0.mean, $0.p95) } ?? "-",
            score.jumps.map { String(format: "%.2f", $0.mean) + " / " + DecimalText.format($0.p95) } ?? "-",
            score.finalAfterLoad.map { String(format: "%.2f / %.2f s", $0.mean, score.latestFinal ?? $0.p95) } ?? "-",
        ]
    }

    /// Sleeps longer than 32 characters keep their first ones and their last sleep (`--json` and
    /// the recommendation's sentence have them all).
    static func shortened(_ sleeps: String) -> String {
        guard sleeps.count > 32, let last = sleeps.split(separator: ",").last else { return sleeps }
        var kept = ""
        for part in sleeps.split(separator: ",") {
            guard kept.count + part.count + last.count < 28 else { break }
            kept += part + ","
        }
        return kept + "…," + last
    }

    /// One candidate in words, e.g. `sleeps 0.1,0.2 s (polls at 0.1 0.3 s), threshold 5 px: 1 page wrong (...)`.
    /// The recommendation, or why the default stays, and what the recording cannot tell.
    static func advice(_ result: TuneResult) -> [String] {
        guard let best = result.recommended else { return [] }
        var lines = [""]
        if !result.judgesLatePolls {
            let latest = result.latestChange.map { String(format: "%.2f s", $0) } ?? "-"
            lines.append("Every recorded page stopped changing within \(DecimalText.format(TuneResult.lateWindow)) s of its load "
                + "(the latest at \(latest)): this recording cannot tell late polls apart, and a schedule that stops early "
                + "looks as good as the app's on it. Record online, or under the app's real conditions, before shortening the schedule.")
        }
        guard let advice = result.advice, let reader = result.readerApp else {
            lines.append("Recommended: " + sentence(result.scores[best]))
            return lines
        }
        if advice == reader {
            let why = best == reader ? "it is the front's first"
                : result.beatsDefault(best) ? "the front's first stops earlier, and this recording cannot judge that"
                : "nothing on the front beats it by more than noise (\(DecimalText.format(TuneResult.noise.pixelSeconds)) px·s of "
                    + "wrong height per page, \(DecimalText.format(TuneResult.noise.jumps)) jumps per page, "
                    + "\(DecimalText.format(TuneResult.noise.seconds)) s to the final height)"
            lines.append("Recommended: keep the default; the default is as good as anything on these pages (\(why)).")
            lines.append("The default:  " + sentence(result.scores[reader]))
            if best != reader { lines.append("Front's first: " + sentence(result.scores[best])) }
        } else {
            lines.append("Recommended: " + sentence(result.scores[advice]))
            lines.append("The default:  " + sentence(result.scores[reader]))
        }
        return lines
    }

    public static func sentence(_ score: CandidateScore) -> String {
        let candidate = score.candidate
        var text = "sleeps \(candidate.sleeps) s (polls at \(candidate.pollTimes) s after load finished), threshold \(Pixels.format(candidate.threshold)): "
        var wrong = "\(score.wrong) page\(score.wrong == 1 ? "" : "s") wrong"
        if score.wrong > 0 {
            var kinds: [String] = []
            if let clip = score.clipped.map({ -$0.error }).max() { kinds.append("\(score.clipped.count) clipped, by up to \(Pixels.format(clip))") }
            if let blank = score.blank.map(\.error).max() { kinds.append("\(score.blank.count) with blank space, up to \(Pixels.format(blank))") }
            wrong += " (" + kinds.joined(separator: "; ") + ")"
        }
        text += wrong + ", \(score.unknown) unknown"
        if let time = score.wrongTime {
            text += String(format: "; a wrong height for %.0f px·s per page on average", time.mean)
                + (score.clippedTime.map { String(format: " (%.0f clipped)", $0.mean) } ?? "")
        }
        if let jumps = score.jumps { text += String(format: "; %.2f jumps per page", jumps.mean) + " (p95 \(DecimalText.format(jumps.p95)))" }
        if let final = score.finalAfterLoad {
            text += String(format: "; final height %.2f s after load finished on average (p95 %.2f s)", final.mean, final.p95)
        }
        return text + "; \(score.polls) poll\(score.polls == 1 ? "" : "s") per page"
    }
}
