import Foundation
import PageHeightBatch
import PageHeightCore
import PageHeightWebKit

/// Everything the command line prints goes through `StandardOutput` and `StandardError`: results,
/// verdicts, help, errors and logs alike. Any of it may carry what a page or an input file
/// controls (a page's ids and URLs, a suite's page names, a cookies file's lines), so both make
/// it printable (`PageText.printable`) here, in one place, whatever the caller.
///
/// Results on standard output, written with `write(2)` so that a failure is seen at once: a
/// closed pipe ends the run quietly (exit 141, as a shell pipeline expects), any other failure
/// (a full disk, a closed descriptor) with a message and exit 74 (EX_IOERR). Nothing printed
/// after the failure is claimed as written.
enum StandardOutput {
    static let log = ResultLog()

    /// Writes `line` and a newline, or ends the process.
    static func line(_ line: String) {
        do throws(OutputError) {
            try log.write(PageText.printable(line)) // a page's text must not drive the terminal
        } catch {
            fail(error, note: nil)
        }
    }

    /// Ends the process after a failed write of results; `note` says what was kept.
    static func fail(_ error: OutputError, note: String?) -> Never {
        if !error.isBrokenPipe {
            StandardError.write("Error: \(error)" + (note.map { "; \($0)" } ?? "") + "\n")
        }
        PageHeightEngine.exit(error.isBrokenPipe ? 141 : 74)
    }
}

/// Text on standard error that may carry what a page controls (its URLs, ids, messages), made
/// printable first (`PageText.printable`).
enum StandardError {
    static func write(_ text: String) {
        FileHandle.standardError.write(Data(PageText.printable(text).utf8))
    }
}
