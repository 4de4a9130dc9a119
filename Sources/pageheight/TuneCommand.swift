import Foundation
import PageHeightTuning

/// `pageheight tune [options] <reports>...` (arguments without the word `tune`): the schedules
/// and thresholds that serve recorded pages best.
func runTune(_ arguments: [String]) -> Int32 {
    let parsed: TuneArguments, reports: [RecordedReport]
    switch parseTuneSubcommand(arguments, .tune) {
    case .run(let (arguments, read)): (parsed, reports) = (arguments, read)
    case .exit(let code): return code
    }
    let candidates = TuneCandidate.all(family: parsed.family, given: parsed.candidates, thresholds: parsed.thresholds)
    let result = TuneSearch(candidates: candidates, tolerance: parsed.tolerance, maxFinal: parsed.maxFinal).run(reports)
    if let path = parsed.report {
        let html = TuneReport.html(result, title: parsed.inputs.map { URL(fileURLWithPath: $0).lastPathComponent }.joined(separator: ", "),
                                   heading: TuneTable.heading(result, family: parsed.family, thresholds: parsed.thresholds,
                                                              given: parsed.candidates.count))
        do {
            try html.write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            standardError("Error: writing the report \(path): \(error.localizedDescription)")
            return 73
        }
        standardError("report: \(path)")
    }
    if parsed.json {
        StandardOutput.line(TuneJSON.encode(result))
    } else {
        StandardOutput.line(TuneTable.text(result, family: parsed.family, thresholds: parsed.thresholds, given: parsed.candidates.count,
                                           rows: parsed.allRows ? nil : TuneTable.shortFront))
    }
    return 0
}
