import Foundation
import PageHeightCore

/// What a long run (`batch`, `check`) has done so far, for the progress line on stderr and for
/// the summary printed when a signal ends the run early: done/total, ok and not ok, the rate and
/// ETA, the pages not ok, and the slowest page still running with its age.
///
/// Thread-safe (a lock): pages start and end on any task; a timer prints the line. `display`
/// says how: `live` rewrites one line on a terminal (every second and at every page's end),
/// `lines` prints a line every `interval` seconds (a log), `none` prints nothing.
public final class RunProgress: @unchecked Sendable {
    public enum Display: Sendable { case none, live, lines }

    /// Kept names of pages not ok (the summary names this many, then "and N more").
    public static let namedNotOK = 10

    public let total: Int
    public let unit: String
    private let display: Display
    private let interval: Double
    private let write: @Sendable (String) -> Void
    private let lock = NSLock()
    private let started = Date()
    private var running: [Int: (name: String, since: Date)] = [:]
    private var ok = 0
    private var notOK: [(name: String, status: String)] = []
    private var notOKCount = 0
    private var shown = false
    private var timer: DispatchSourceTimer?

    /// - Parameters:
    ///   - unit: what is counted, singular (`page`, `case`).
    ///   - write: where the text goes (stderr).
    public init(total: Int, unit: String, display: Display, interval: Double = 10,
                write: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) }) {
        (self.total, self.unit, self.display, self.interval, self.write)
            = (total, unit, display, interval, write)
        guard display != .none else { return }
        let timer = DispatchSource.makeTimerSource(queue: .global())
        let every = display == .live ? 1.0 : interval
        timer.schedule(deadline: .now() + every, repeating: every)
        timer.setEventHandler { [weak self] in self?.show() }
        timer.resume()
        self.timer = timer
    }

    deinit { timer?.cancel() }

    public func started(_ id: Int, name: String) {
        lock.withLock { running[id] = (Self.shown(name), Date()) }
    }

    /// A page as the progress shows it: a path normalised (`lists/../a.html` is `a.html`'s
    /// absolute path), a URL as given.
    static func shown(_ page: String) -> String {
        guard page.hasPrefix("/") else { return page }
        return URL(fileURLWithPath: page).standardizedFileURL.path
    }

    /// `text` in at most `width` characters, its middle replaced by `…` when it is longer.
    static func middleShortened(_ text: String, to width: Int) -> String {
        guard text.count > width else { return text }
        guard width > 1 else { return String(text.prefix(max(0, width))) }
        let keep = width - 1
        return String(text.prefix(keep - keep / 2)) + "…" + String(text.suffix(keep / 2))
    }

    /// The terminal's width in columns (stderr's), else `COLUMNS`, else 80.
    static func terminalWidth() -> Int {
        var size = winsize()
        if ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return ProcessInfo.processInfo.environment["COLUMNS"].flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil } ?? 80
    }

    public func finished(_ id: Int, name: String, status: PageStatus) {
        lock.withLock {
            running[id] = nil
            if status == .ok {
                ok += 1
            } else {
                notOKCount += 1
                if notOK.count < Self.namedNotOK { notOK.append((Self.shown(name), status.rawValue)) }
            }
        }
        if display == .live { show() }
    }

    /// The progress line, e.g. `12/30 pages (10 ok, 2 not ok), 0.80/s, ETA 22 s; slowest
    /// running: a.html (12.3 s)`; with `width`, at most that many characters, the slowest
    /// page's name shortened in its middle first.
    public func line(now: Date = Date(), width: Int? = nil) -> String {
        lock.withLock {
            let done = ok + notOKCount
            let elapsed = now.timeIntervalSince(started)
            let rate = elapsed > 0 ? Double(done) / elapsed : 0
            let eta = rate > 0 ? String(format: "%.0f s", Double(total - done) / rate) : "?"
            var text = String(format: "%d/%d %@s (%d ok, %d not ok), %.2f/s, ETA %@", done, total, unit, ok, notOKCount, rate, eta)
            if let slowest = running.values.min(by: { $0.since < $1.since }) {
                let age = String(format: " (%.1f s)", now.timeIntervalSince(slowest.since))
                var name = slowest.name
                if let width {
                    let room = width - text.count - "; slowest running: ".count - age.count
                    name = room >= 8 ? Self.middleShortened(name, to: room) : ""
                }
                if !name.isEmpty { text += "; slowest running: " + name + age }
            }
            return width.map { Self.middleShortened(text, to: $0) } ?? text
        }
    }

    /// `not ok: a.html (timeout), b.html (load-error), … and 3 more`, or nil when all were ok.
    public var notOKText: String? {
        lock.withLock {
            guard notOKCount > 0 else { return nil }
            var names = notOK.map { "\($0.name) (\($0.status))" }
            if notOKCount > names.count { names.append("and \(notOKCount - names.count) more") }
            return "not ok: " + names.joined(separator: ", ")
        }
    }

    /// Stops the timer and ends the live line.
    public func finish() {
        timer?.cancel()
        lock.withLock {
            if shown && display == .live { write("\n") }
            shown = false
        }
    }

    private func show() {
        // It names the slowest page (a page's URL); live, it fits the terminal, or every update
        // would wrap into new lines.
        let text = PageText.printable(line(width: display == .live ? Self.terminalWidth() - 1 : nil))
        lock.withLock {
            switch display {
            case .none: return
            case .live: write("\r" + text + "\u{1B}[K")
            case .lines: write("progress: " + text + "\n")
            }
            shown = true
        }
    }
}
