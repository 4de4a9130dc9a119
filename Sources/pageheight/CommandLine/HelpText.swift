import PageHeightBatch
import PageHeightCore
import PageHeightWebKit

/// The texts of `--help`, `--version` and usage errors.
enum HelpText {
    /// `pageheight 0.1.0 (WebKitGTK 2.50.6)`: the engine's version is the library's at run time.
    static var version: String { "pageheight \(PageHeightVersion.current) (WebKitGTK \(PageHeightEngine.webKitGTKVersion))" }

    static let usage = "USAGE: pageheight [options] <page> ...\n       pageheight batch [options] <list>\n"
        + "       pageheight check [options] [suite.json]\n       pageheight sweep [options] <page> ...\n"
        + "       pageheight replay [options] <reports> ...\n       pageheight tune [options] <reports> ...\n"
        + "       pageheight serve [--listen HOST:PORT] [--jobs N] [--queue N] [options]"

    static let hint = "See 'pageheight --help'."

    static var help: String {
        """
        OVERVIEW: How tall a web page's content is once it has stopped moving, as WebKit renders it.

        Loads each page in an off-screen WebKitGTK view (starting its own Xvfb when DISPLAY is
        unset), measures it on a reader app's growing-delay schedule, observes every change, and
        reports the stabilized height and what each app strategy would have shown.

        \(usage)

        ARGUMENTS:
          <page>                  A file path, an http(s):// file:// data: or about: URL, or - for HTML on stdin.
                                  Several pages print a line each (page: height), in input order;
                                  with --json, JSON Lines, one report per page.

        OPTIONS:
        \(MeasuringOption.helpLines)
          --fonts <mode>          pinned: only the fonts of the packages pageheight's setup installs, whatever
                                  else the machine has; system: the machine's fontconfig. (default: pinned)
          --font-dir <dir>        Also render with the fonts under this directory (a site's or an app's own).
                                  Repeatable.
          --snapshot <file.png>   Write a full-document PNG of the final state (one page only).
          --version               Print the version.
        \(RunOption.helpLines(for: .measure))

        BATCH:
          pageheight batch [options] <list>
                                  <list> is a file of URLs or paths (one a line; blank lines and # comments
                                  ignored; paths relative to the file), a directory (every .html under it),
                                  or - for stdin. Every option above applies. Output: JSON Lines, one report
                                  a page with its "index" in the list, written as soon as the page finishes.
          -o, --out <file>        Write the JSON Lines to a file instead of stdout.
          --resume                Continue an --out file: skip the pages it holds, repair a cut-off last line.
          --retries <n>           Measure a page whose web process crashed again, n times. (default: 0)
          --shard <k>/<n>         Measure only slice k of n (from 1): a stable split by a hash of each entry.
          --glob <pattern>        Of a directory, only the .html files whose path below it matches
                                  (* matches / too: '*/source.html').
        \(RunOption.helpLines(for: .batch))

        REGRESSION:
          pageheight check [options] [suite.json]   Compare heights with the suite's baseline; see
                                                    'pageheight check --help'.
          pageheight sweep [options] <page> ...     Heights at every width x font size x zoom; see
                                                    'pageheight sweep --help'.

        TUNING (from recorded reports, nothing is loaded):
          pageheight replay [options] <reports> ...  What an app with another --schedule and --threshold would
                                                     show on each page; see 'pageheight replay --help'.
          pageheight tune [options] <reports> ...    Which schedule and threshold an app should use: the Pareto
                                                     front of pages wrong, jumps and time to the final height;
                                                     see 'pageheight tune --help'.

        SERVER:
          pageheight serve [options]                Measure pages sent over HTTP (POST /v1/measure, /v1/batch),
                                                    engines kept warm; see 'pageheight serve --help'.

        EXIT STATUS:
          0 every page is ok; 1 some page is not (unstable, runaway, fallback, load-error, timeout,
          crashed); 64 the command line is wrong.
        """
    }

    /// One option of help: `usage` in the left column, `text` wrapped in the right one.
    static func entry(_ usage: String, _ text: String) -> String {
        let indent = String(repeating: " ", count: 26), width = 112
        var lines: [String] = []
        var line = "  " + usage
        line += usage.count + 2 < indent.count - 1 ? String(repeating: " ", count: indent.count - line.count) : "  "
        var lineIsEmpty = true
        for word in text.split(separator: " ") {
            if !lineIsEmpty && line.count + 1 + word.count > width {
                lines.append(line)
                line = indent
                lineIsEmpty = true
            }
            line += (lineIsEmpty ? "" : " ") + word
            lineIsEmpty = false
        }
        return (lines + [line]).joined(separator: "\n")
    }
}
