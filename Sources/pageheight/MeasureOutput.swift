import PageHeightCore

/// What `pageheight <page>...` prints for one page's report: its summary line (after the page's
/// argument when there are several), or its JSON (one line each when there are several).
enum MeasureOutput {
    static func text(_ report: PageReport, page: String, of arguments: CommandLineArguments) -> String {
        let several = arguments.pages.count > 1
        if arguments.json { return several ? ReportEncoding.jsonLine(report) : ReportEncoding.prettyJSON(report) }
        return several ? page + ": " + SummaryLine.format(report) : SummaryLine.format(report)
    }
}
