import Foundation

/// The command line of `pageheight [options] <page>...`, parsed from `[String]` (pure) and
/// then validated; running it is the executable's job.
public struct CommandLineArguments: Equatable, Sendable {
    /// `pageheight <page>...` measures pages; `pageheight batch <list>` measures a list.
    public enum Command: Equatable, Sendable { case measure, batch }

    public var command = Command.measure
    public var options = MeasureOptions()
    public var pages: [String] = []
    public var json = false
    public var verbose = false
    public var snapshot: String?
    public var help = false
    public var version = false
    // batch only
    public var jobs: Int?
    public var out: String?
    public var resume = false
    public var retries = 0
    public var shard: Shard?
    public var progress = true

    public init() {}

    /// Parses `arguments` (without the program name). Accepts `--name value` and `--name=value`;
    /// `--` ends the options.
    public static func parse(_ arguments: [String]) throws(UsageError) -> CommandLineArguments {
        var result = CommandLineArguments()
        var arguments = arguments
        if arguments.first == "batch" {
            result.command = .batch
            arguments.removeFirst()
        }
        var index = 0
        var optionsEnded = false
        func value(for name: String, inline: String?) throws(UsageError) -> String {
            if let inline { return inline }
            index += 1
            guard index < arguments.count else { throw UsageError("missing value for '\(name)'") }
            return arguments[index]
        }
        while index < arguments.count {
            let argument = arguments[index]
            if optionsEnded || !argument.hasPrefix("-") || argument == "-" {
                result.pages.append(argument)
                index += 1
                continue
            }
            if argument == "--" {
                optionsEnded = true
                index += 1
                continue
            }
            var name = argument
            var inline: String?
            if let equals = argument.firstIndex(of: "="), argument.hasPrefix("--") {
                name = String(argument[..<equals])
                inline = String(argument[argument.index(after: equals)...])
            }
            func flag() throws(UsageError) {
                if inline != nil { throw UsageError("'\(name)' takes no value") }
            }
            switch name {
            case "-h", "--help": try flag(); result.help = true
            case "--version": try flag(); result.version = true
            case "--json": try flag(); result.json = true
            case "-v", "--verbose": try flag(); result.verbose = true
            case "--fit": try flag(); result.options.fit = true
            case "--no-fit": try flag(); result.options.fit = false
            case "--no-javascript": try flag(); result.options.javascript = false
            case "--offline":
                if let inline {
                    guard let mode = OfflineMode(rawValue: inline) else {
                        throw UsageError("unknown value '\(inline)' for '--offline' (one of: refuse, block)")
                    }
                    result.options.offlineMode = mode
                }
                result.options.offline = true
            case "--width": result.options.width = try integer(name, try value(for: name, inline: inline))
            case "--height": result.options.height = try integer(name, try value(for: name, inline: inline))
            case "--font-size": result.options.fontSize = try integer(name, try value(for: name, inline: inline))
            case "--zoom": result.options.zoom = try number(name, try value(for: name, inline: inline))
            case "--quiet": result.options.quiet = try number(name, try value(for: name, inline: inline))
            case "--timeout": result.options.timeout = try number(name, try value(for: name, inline: inline))
            case "--threshold": result.options.threshold = try number(name, try value(for: name, inline: inline))
            case "--header": result.options.header = try number(name, try value(for: name, inline: inline))
            case "--footer": result.options.footer = try number(name, try value(for: name, inline: inline))
            case "--metric":
                let text = try value(for: name, inline: inline)
                guard let metric = HeightMetric(rawValue: text) else {
                    throw UsageError("unknown metric '\(text)' for '--metric' (one of: "
                        + HeightMetric.allCases.map(\.rawValue).joined(separator: ", ") + ")")
                }
                result.options.metric = metric
            case "--until":
                let text = try value(for: name, inline: inline)
                guard let rule = StopRule(rawValue: text) else {
                    throw UsageError("unknown value '\(text)' for '--until' (one of: settled, schedule, quick)")
                }
                result.options.until = rule
            case "--schedule":
                let text = try value(for: name, inline: inline)
                guard let schedule = GrowingDelaySchedule(parsing: text) else {
                    throw UsageError("'--schedule' takes positive sleeps in seconds separated by commas, e.g. 0.1,0.2,0.5; got '\(text)'")
                }
                result.options.schedule = schedule
            case "--allow-host":
                let host = try value(for: name, inline: inline)
                guard SubresourceBoundary.isHost(host) else {
                    throw UsageError("'--allow-host' takes a host name or address with an optional port, e.g. 127.0.0.1:8080; got '\(host)'")
                }
                result.options.allowedHosts = (result.options.allowedHosts ?? []) + [host.lowercased()]
            case "--fonts":
                let text = try value(for: name, inline: inline)
                guard let mode = FontChoice.Mode(rawValue: text) else {
                    throw UsageError("unknown value '\(text)' for '--fonts' (one of: pinned, system)")
                }
                result.options.fonts = FontChoice(mode: mode, directories: result.options.fonts?.directories ?? [])
            case "--font-dir":
                let directory = try value(for: name, inline: inline)
                guard !directory.isEmpty else { throw UsageError("'--font-dir' takes a directory, got ''") }
                let path = URL(fileURLWithPath: directory).standardizedFileURL.path
                var fonts = result.options.fonts ?? FontChoice()
                if !fonts.directories.contains(path) { fonts.directories.append(path) }
                result.options.fonts = fonts
            case "--snapshot":
                result.snapshot = try value(for: name, inline: inline)
            case "--jobs", "-j": result.jobs = try integer(name, try value(for: name, inline: inline))
            case "--out", "-o": result.out = try value(for: name, inline: inline)
            case "--resume": try flag(); result.resume = true
            case "--retries": result.retries = try integer(name, try value(for: name, inline: inline))
            case "--no-progress": try flag(); result.progress = false
            case "--shard":
                let text = try value(for: name, inline: inline)
                guard let shard = Shard(parsing: text) else {
                    throw UsageError("'--shard' takes K/N with 1 <= K <= N, e.g. 2/4; got '\(text)'")
                }
                result.shard = shard
            default:
                throw UsageError("unknown option '\(name)'")
            }
            if result.command == .measure,
               ["--jobs", "-j", "--out", "-o", "--resume", "--retries", "--no-progress", "--shard"].contains(name) {
                throw UsageError("'\(name)' is an option of 'pageheight batch'")
            }
            index += 1
        }
        return result
    }

    /// Checks ranges and combinations that parsing alone cannot.
    public func validate() throws(UsageError) {
        if help || version { return }
        if command == .batch {
            guard pages.count == 1 else {
                throw UsageError(pages.isEmpty ? "missing list (a file of pages, a directory, or - for stdin)"
                    : "'pageheight batch' takes one list, got \(pages.count)")
            }
            if resume && out == nil { throw UsageError("'--resume' needs '--out FILE' (the output to continue)") }
            if snapshot != nil { throw UsageError("'--snapshot' takes one page; it is not an option of 'pageheight batch'") }
            if let jobs { try check(jobs, "--jobs", 1...64) }
            try check(retries, "--retries", 0...10)
        }
        guard !pages.isEmpty else { throw UsageError("missing page (a file, a URL, or - for stdin)") }
        try check(options.width, "--width", 1...100_000)
        try check(options.height, "--height", 1...100_000)
        try check(options.fontSize, "--font-size", 1...500)
        try check(options.zoom, "--zoom", 0.1...10)
        try check(options.quiet, "--quiet", 0...600)
        try check(options.timeout, "--timeout", 0.1...86_400)
        try check(options.threshold, "--threshold", 0...100_000)
        try check(options.header, "--header", 0...1_000_000)
        try check(options.footer, "--footer", 0...1_000_000)
        for directory in options.fonts?.directories ?? [] { try Self.checkFontDirectory(directory) }
        if pages.filter({ $0 == "-" }).count > 1 { throw UsageError("standard input ('-') can be read only once") }
        if let snapshot {
            guard pages.count == 1 else { throw UsageError("'--snapshot' takes one page, got \(pages.count)") }
            let directory = URL(fileURLWithPath: snapshot).deletingLastPathComponent().path
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw UsageError("'--snapshot': no such directory: \(directory)")
            }
        }
    }

    /// A `--font-dir` must be a directory that holds a font file somewhere under it.
    static func checkFontDirectory(_ directory: String) throws(UsageError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) else {
            throw UsageError("'--font-dir': no such directory: \(directory)")
        }
        guard isDirectory.boolValue else { throw UsageError("'--font-dir': not a directory: \(directory)") }
        guard FileManager.default.isReadableFile(atPath: directory) else {
            throw UsageError("'--font-dir': cannot read the directory: \(directory)")
        }
        let enumerator = FileManager.default.enumerator(atPath: directory)
        while let relative = enumerator?.nextObject() as? String {
            if FontsConf.fontExtensions.contains((relative as NSString).pathExtension.lowercased()) { return }
        }
        throw UsageError("'--font-dir': no font files (" + FontsConf.fontExtensions.sorted().map { "." + $0 }
            .joined(separator: ", ") + ") under \(directory)")
    }

    private func check<T: Comparable>(_ value: T, _ name: String, _ range: ClosedRange<T>) throws(UsageError) {
        guard range.contains(value) else {
            throw UsageError("'\(name)' must be between \(range.lowerBound) and \(range.upperBound), got \(value)")
        }
    }
}

private func integer(_ name: String, _ text: String) throws(UsageError) -> Int {
    guard let value = Int(text) else { throw UsageError("'\(name)' takes a whole number, got '\(text)'") }
    return value
}

private func number(_ name: String, _ text: String) throws(UsageError) -> Double {
    guard let value = Double(text), value.isFinite else { throw UsageError("'\(name)' takes a number, got '\(text)'") }
    return value
}

/// A mistake in the command line: printed as `Error: …`, the usage line and a hint; exit 64.
public struct UsageError: Error, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
