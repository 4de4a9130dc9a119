import Foundation

/// One option that changes a measurement: its switch, value, range, default, help line, its key
/// in a suite file, and how it sets `MeasureOptions`.
///
/// `MeasuringOption.all` is the one table of them. It drives the single-page, batch, check,
/// sweep and replay command lines, the suite file's keys, check and sweep overrides, `--help`
/// and the README's options table (a test compares the README with it).
public struct MeasuringOption: Sendable {
    /// Where a suite file names the option.
    public enum SuiteKey: Sendable, Equatable {
        /// A key of its own: `"timeout": 20`.
        case value(String)
        /// A list under another key, each value a case of its own: `"widths": [390, 1024]`.
        case cases(String)
        /// None; `check` and `sweep` do not take the option either.
        case none

        /// Whether it is `cases`: the option is a dimension of a suite's cases.
        public var isCases: Bool { if case .cases = self { true } else { false } }
    }

    /// The switch, e.g. `--width`.
    public let name: String
    /// The switch that turns a flag off (`--no-fit`), if it has both.
    public let negation: String?
    /// What the value is (`px` in `--width <px>`); nil for a flag.
    public let placeholder: String?
    /// The value is given only after `=` and may be left out (`--offline[=MODE]`).
    public let valueIsOptional: Bool
    public let suiteKey: SuiteKey
    /// One line of help: what the option does.
    public let help: String
    /// The default as help and the README show it; nil when there is none to show.
    public let defaultText: String?
    /// The values allowed (`1-100000`), as help and the README show them; nil for no range.
    public let rangeText: String?

    package let read: @Sendable (inout GivenOption, inout MeasureOptions) throws(UsageError) -> Void
    package let readSuite: @Sendable (_ value: JSONValue, _ key: String, inout MeasureOptions) throws(SuiteValueProblem) -> Void
    let check: @Sendable (MeasureOptions) throws(UsageError) -> Void
    /// Copies the option's setting from the first options to the second.
    package let copy: @Sendable (MeasureOptions, inout MeasureOptions) -> Void
    /// The suite's value is a path, taken relative to the suite file's folder (`cookiesFile`).
    public var suiteValueIsPath = false

    /// How the option is written: `--width <px>` in help; `` `--width PX` `` in Markdown.
    package func synopsis(markdown: Bool) -> String {
        let code = { (text: String) in markdown ? "`\(text)`" : text }
        if let negation { return "\(code(name)) / \(code(negation))" }
        guard let placeholder else { return code(name) }
        let value = markdown ? placeholder.uppercased() : "<\(placeholder)>"
        return code(valueIsOptional ? "\(name)[=\(value)]" : "\(name) \(value)")
    }

    /// The switches that name this option.
    public var switches: [String] { [name] + (negation.map { [$0] } ?? []) }
}

extension MeasuringOption {
    public static let widthRange = 1...100_000
    public static let fontSizeRange = 1...500
    public static let zoomRange = 0.1...10.0
    public static let thresholdRange = 0.0...100_000

    /// Every measuring option, in the order help and the README list them.
    public static let all: [MeasuringOption] = [
        .device,
        .whole("--width", \.width, widthRange, "px", suite: .cases("widths"), help: "Viewport width in CSS px."),
        .whole("--height", \.height, 1...100_000, "px", suite: .value("height"),
               help: "Initial viewport height in CSS px (fit mode changes it)."),
        .whole("--font-size", \.fontSize, fontSizeRange, "px", suite: .cases("fontSizes"), help: "Default font size in CSS px."),
        .number("--zoom", \.zoom, zoomRange, "factor", suite: .cases("zooms"),
                help: "Page zoom (the viewport keeps --width CSS px)."),
        .choice("--metric", \.metric, noun: "metric", "name", suite: "metric",
                help: "What is measured: body-scroll (the reader app), document-scroll, body-offset, document-offset, "
                    + "body-rect, lowest-element, max (Playwright's full-page size)."),
        .choice("--until", \.until, "rule", suite: "until",
                help: "schedule: through the reader app's whole schedule (to its last poll), then until settled: what the app "
                    + "shows; quiet: stop once settled, maybe before the schedule's end, missing what changes later (a periodic "
                    + "timer's work; settled is its former name); quick: a hand-written script's rule (load finished, fonts "
                    + "ready, images done, one measurement)."),
        .choice("--clock", \.clock, "clock", suite: "clock",
                help: "The page's clock. real: its timers fire when due and the rules wait for them; virtual: while the "
                    + "page is idle its clock jumps to its next timer or the rules' next step (the same rules, at the speed of layout)."),
        .number("--quiet", \.quiet, 0...600, "seconds", suite: .value("quiet"),
                help: "Nothing moves and nothing is pending for this long: settled."),
        .number("--timeout", \.timeout, 0.1...86_400, "seconds", suite: .value("timeout"),
                help: "Cap on the whole measurement, from the start of the load."),
        .number("--threshold", \.threshold, thresholdRange, "px", suite: .value("threshold"),
                help: "Moves of this much or less are ignored."),
        .schedule,
        .flag(on: "--fit", off: "--no-fit", \.fit, suite: "fit",
              help: "Fit mode: each adopted height becomes the view's height, as in the reader app."),
        .flag(on: nil, off: "--no-javascript", \.javascript, suite: "javascript",
              help: "JavaScript off: the height is then an estimate from the text."),
        .languages,
        .colorScheme,
        .offline,
        .allowHost,
        .requestHeader,
        .cookie,
        .cookiesFile,
        .number("--header", \.header, 0...1_000_000, "px", suite: .value("header"),
                help: "A native view above the web view, in px; adds to the report's total (total = header + height "
                    + "+ footer). Not a request header: that is --request-header."),
        .number("--footer", \.footer, 0...1_000_000, "px", suite: .value("footer"),
                help: "A native view below the web view; adds to the report's total."),
        .then,
    ]

    /// The option one of whose switches is `name`.
    package static func named(_ name: String) -> MeasuringOption? {
        all.first { $0.switches.contains(name) }
    }

    /// Checks every option's range in `options`.
    package static func validate(_ options: MeasureOptions) throws(UsageError) {
        for option in all { try option.check(options) }
    }

    /// The README's rows for every option: `| switch | default | range | help |`.
    public static var readmeRows: [String] {
        all.map { option in
            "|" + [option.synopsis(markdown: true), option.defaultText ?? "", option.rangeText ?? "", option.help].map { $0.isEmpty ? " |" : " \($0) |" }.joined()
        }
    }

    /// The suite file's keys for measuring options, in table order.
    public static var suiteKeys: [String] {
        all.compactMap { if case .value(let key) = $0.suiteKey { key } else { nil } }
    }
}

// MARK: - Kinds of option

extension MeasuringOption {
    private static let defaults = MeasureOptions()

    static func whole(_ name: String, _ field: WritableKeyPath<MeasureOptions, Int> & Sendable, _ range: ClosedRange<Int>,
                      _ placeholder: String, suite: SuiteKey, help: String) -> MeasuringOption {
        MeasuringOption(
            name: name, negation: nil, placeholder: placeholder, valueIsOptional: false, suiteKey: suite, help: help,
            defaultText: String(defaults[keyPath: field]), rangeText: "\(range.lowerBound)-\(range.upperBound)",
            read: { given, options throws(UsageError) in options[keyPath: field] = try given.integer() },
            readSuite: { value, key, options throws(SuiteValueProblem) in options[keyPath: field] = try SuiteValue.whole(value, key, range) },
            check: { options throws(UsageError) in try checkRange(options[keyPath: field], name, range) },
            copy: { from, to in to[keyPath: field] = from[keyPath: field] })
    }

    static func number(_ name: String, _ field: WritableKeyPath<MeasureOptions, Double> & Sendable, _ range: ClosedRange<Double>,
                       _ placeholder: String, suite: SuiteKey, help: String) -> MeasuringOption {
        MeasuringOption(
            name: name, negation: nil, placeholder: placeholder, valueIsOptional: false, suiteKey: suite, help: help,
            defaultText: DecimalText.format(defaults[keyPath: field]),
            rangeText: "\(DecimalText.format(range.lowerBound))-\(DecimalText.format(range.upperBound))",
            read: { given, options throws(UsageError) in options[keyPath: field] = try given.number() },
            readSuite: { value, key, options throws(SuiteValueProblem) in options[keyPath: field] = try SuiteValue.number(value, key, range) },
            check: { options throws(UsageError) in try checkRange(options[keyPath: field], name, range) },
            copy: { from, to in to[keyPath: field] = from[keyPath: field] })
    }

    static func choice<T: RawRepresentable & CaseIterable & Sendable>(
        _ name: String, _ field: WritableKeyPath<MeasureOptions, T> & Sendable, noun: String = "value", _ placeholder: String,
        suite key: String, help: String
    ) -> MeasuringOption where T.RawValue == String {
        MeasuringOption(
            name: name, negation: nil, placeholder: placeholder, valueIsOptional: false, suiteKey: .value(key), help: help,
            defaultText: defaults[keyPath: field].rawValue, rangeText: nil,
            read: { given, options throws(UsageError) in options[keyPath: field] = try given.choice(noun: noun) },
            readSuite: { value, key, options throws(SuiteValueProblem) in
                guard let text = value.string, let chosen = T(rawValue: text) else {
                    throw SuiteValueProblem("'\(key)' must be one of: " + T.allCases.map(\.rawValue).joined(separator: ", "))
                }
                options[keyPath: field] = chosen
            },
            check: { _ throws(UsageError) in },
            copy: { from, to in to[keyPath: field] = from[keyPath: field] })
    }

    /// A flag: `on` sets `field`, `off` clears it; a flag with only `off` (`--no-javascript`)
    /// shows no default.
    static func flag(on: String?, off: String, _ field: WritableKeyPath<MeasureOptions, Bool> & Sendable, suite key: String,
                     help: String) -> MeasuringOption {
        MeasuringOption(
            name: on ?? off, negation: on == nil ? nil : off, placeholder: nil, valueIsOptional: false, suiteKey: .value(key),
            help: help, defaultText: on.map { defaults[keyPath: field] ? $0 : off }, rangeText: nil,
            read: { given, options throws(UsageError) in
                try given.flag()
                options[keyPath: field] = given.name != off
            },
            readSuite: { value, key, options throws(SuiteValueProblem) in options[keyPath: field] = try SuiteValue.flag(value, key) },
            check: { _ throws(UsageError) in },
            copy: { from, to in to[keyPath: field] = from[keyPath: field] })
    }

    static let schedule = MeasuringOption(
        name: "--schedule", negation: nil, placeholder: "sleeps", valueIsOptional: false, suiteKey: .value("schedule"),
        help: "The reader app's sleeps between polls, in seconds, comma-separated.",
        defaultText: defaults.schedule.delays.map(DecimalText.format).joined(separator: ","), rangeText: "each above 0",
        read: { given, options throws(UsageError) in options.schedule = try given.sleeps() },
        readSuite: { value, key, options throws(SuiteValueProblem) in
            let problem = SuiteValueProblem("'\(key)' must be a list of positive sleeps in seconds, e.g. [0.1, 0.2, 0.5]")
            let list = try SuiteValue.list(value, key)
            let sleeps = list.compactMap(\.number)
            guard sleeps.count == list.count,
                  let schedule = GrowingDelaySchedule(parsing: sleeps.map { "\($0)" }.joined(separator: ",")) else { throw problem }
            options.schedule = schedule
        },
        check: { _ throws(UsageError) in },
        copy: { from, to in to.schedule = from.schedule })

    static let offline = MeasuringOption(
        name: "--offline", negation: nil, placeholder: "mode", valueIsOptional: true, suiteKey: .value("offline"),
        help: "Stop at once every request but local files, loopback, data:, blob: and about:. MODE block (the default): "
            + "WebKit's content blocker stops each request before it is sent, at the same point of the page's work every "
            + "run; refuse: each request fails as on a machine without network, at a moment the network process sets, "
            + "so pages that race with their failing requests can differ from run to run. Both seed Math.random, so "
            + "pages that pick content at random repeat.",
        defaultText: nil, rangeText: nil,
        read: { given, options throws(UsageError) in
            if let inline = given.inline {
                guard let mode = OfflineMode(rawValue: inline) else {
                    throw UsageError("unknown value '\(inline)' for '--offline' (one of: "
                        + OfflineMode.allCases.map(\.rawValue).joined(separator: ", ") + ")")
                }
                options.offlineMode = mode
            }
            options.offline = true
        },
        readSuite: { value, key, options throws(SuiteValueProblem) in
            if let text = value.string {
                guard let mode = OfflineMode(rawValue: text) else {
                    throw SuiteValueProblem("'\(key)' must be true, false, "
                        + OfflineMode.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: " or "))
                }
                options.offline = true
                options.offlineMode = mode
            } else {
                options.offline = try SuiteValue.flag(value, key)
            }
        },
        check: { _ throws(UsageError) in },
        copy: { from, to in
            to.offline = from.offline
            to.offlineMode = from.offlineMode
        })

    static let allowHost = MeasuringOption(
        name: "--allow-host", negation: nil, placeholder: "host[:port]", valueIsOptional: false, suiteKey: .none,
        help: "Let the page load from this host although it is on loopback or a private network (by default only "
            + "a page served from there may). Repeatable.",
        defaultText: nil, rangeText: nil,
        read: { given, options throws(UsageError) in
            let host = try given.value()
            guard SubresourceBoundary.isHost(host) else {
                throw UsageError("'\(given.name)' takes a host name or address with an optional port, e.g. 127.0.0.1:8080; got '\(host)'")
            }
            options.allowedHosts = (options.allowedHosts ?? []) + [host.lowercased()]
        },
        readSuite: { _, key, _ throws(SuiteValueProblem) in preconditionFailure("a suite has no key for --allow-host") },
        check: { _ throws(UsageError) in },
        copy: { from, to in to.allowedHosts = from.allowedHosts })

    static let requestHeader = MeasuringOption(
        name: "--request-header", negation: nil, placeholder: "name: value", valueIsOptional: false,
        suiteKey: .value("requestHeaders"),
        help: "Send this header field with the page's own request (the main document's, not its subresources'). "
            + "Repeatable. Reports and logs name it, never its value.",
        defaultText: nil, rangeText: nil,
        read: { given, options throws(UsageError) in
            let header = try PageRequests.header(try given.value())
            options.requests = (options.requests ?? PageRequests()).adding(header: header)
        },
        readSuite: { value, key, options throws(SuiteValueProblem) in
            var requests = options.requests ?? PageRequests()
            requests.headers = try strings(value, key, "'Name: value'", PageRequests.header)
            options.requests = requests.isEmpty ? nil : requests
        },
        check: { _ throws(UsageError) in },
        copy: { from, to in
            var requests = to.requests ?? PageRequests()
            requests.headers = from.requests?.headers ?? []
            to.requests = requests.isEmpty ? nil : requests
        })

    static let cookie = MeasuringOption(
        name: "--cookie", negation: nil, placeholder: "name=value", valueIsOptional: false, suiteKey: .value("cookies"),
        help: "Send this cookie to the page's own host (an article behind a login). Repeatable. Reports and logs "
            + "name it, never its value.",
        defaultText: nil, rangeText: nil,
        read: { given, options throws(UsageError) in
            let cookie = try PageRequests.cookie(try given.value())
            options.requests = (options.requests ?? PageRequests()).adding(cookies: [cookie])
        },
        readSuite: { value, key, options throws(SuiteValueProblem) in
            var requests = options.requests ?? PageRequests()
            requests.cookies = try strings(value, key, "'name=value'", PageRequests.cookie)
            options.requests = requests.isEmpty ? nil : requests
        },
        check: { _ throws(UsageError) in },
        copy: { from, to in
            var requests = to.requests ?? PageRequests()
            requests.cookies = from.requests?.cookies ?? []
            to.requests = requests.isEmpty ? nil : requests
        })

    /// The cookies of the Netscape cookies.txt file at `path`.
    private static func cookies(inFile path: String) throws(UsageError) -> [PageRequests.Cookie] {
        let data: Data
        do {
            data = try BoundedInput.read(path: path, limit: PageRequests.cookiesFileByteLimit)
        } catch {
            if case .tooLarge(let limit) = error {
                throw UsageError("'--cookies' \(path) is larger than \(BoundedInput.size(limit)), the most a cookies file may have")
            }
            throw UsageError("'--cookies': cannot read \(path)")
        }
        return try PageRequests.cookiesFile(String(decoding: data, as: UTF8.self), name: path)
    }

    /// A suite's list of strings, each read as the command line reads the option's value.
    private static func strings<T>(_ value: JSONValue, _ key: String, _ form: String,
                                   _ parse: (String) throws(UsageError) -> T) throws(SuiteValueProblem) -> [T] {
        var parsed: [T] = []
        for item in try SuiteValue.list(value, key) {
            guard let text = item.string else { throw SuiteValueProblem("'\(key)' must be a list of \(form) strings") }
            do throws(UsageError) { parsed.append(try parse(text)) } catch { throw SuiteValueProblem("'\(key)': \(error.message)") }
        }
        return parsed
    }

    static let cookiesFile: MeasuringOption = {
        var option = cookiesFileOption
        option.suiteValueIsPath = true
        return option
    }()

    private static let cookiesFileOption = MeasuringOption(
        name: "--cookies", negation: nil, placeholder: "file", valueIsOptional: false, suiteKey: .value("cookiesFile"),
        help: "Send the cookies of this Netscape cookies.txt file (curl's -c, browsers' exporters; at most "
            + "\(PageRequests.cookiesFileLimit)) to the page whose host they name, with its own site's requests only. "
            + "Reports and logs name them, never their values.",
        defaultText: nil, rangeText: nil,
        read: { given, options throws(UsageError) in
            options.requests = (options.requests ?? PageRequests()).adding(cookies: try cookies(inFile: try given.value()))
        },
        readSuite: { value, key, options throws(SuiteValueProblem) in
            guard let path = value.string else { throw SuiteValueProblem("'\(key)' must be the path of a cookies.txt file") }
            do throws(UsageError) {
                options.requests = (options.requests ?? PageRequests()).adding(cookies: try cookies(inFile: path))
            } catch {
                throw SuiteValueProblem("'\(key)': \(error.message)")
            }
        },
        check: { _ throws(UsageError) in },
        copy: { from, to in
            var requests = to.requests ?? PageRequests()
            requests.cookies = from.requests?.cookies ?? []
            to.requests = requests.isEmpty ? nil : requests
        })

    static let device = MeasuringOption(
        name: "--device", negation: nil, placeholder: "name", valueIsOptional: false, suiteKey: .value("device"),
        help: "What the page sees of the device: " + DeviceProfile.Name.allCases.map(\.rawValue).joined(separator: ", ")
            + " (user agent, viewport, scale, touch, screen, platform; docs/devices.md says which the engine takes "
            + "and which only scripts see). --width and --height still set the viewport; in check and sweep "
            + "the suite's widths stay.",
        defaultText: DeviceProfile.Name.desktop.rawValue, rangeText: nil,
        read: { given, options throws(UsageError) in
            let name: DeviceProfile.Name = try given.choice(noun: "device")
            options.device = name == .desktop ? nil : name
        },
        readSuite: { value, key, options throws(SuiteValueProblem) in
            guard let text = value.string, let name = DeviceProfile.Name(rawValue: text) else {
                throw SuiteValueProblem("'\(key)' must be one of: " + DeviceProfile.Name.allCases.map(\.rawValue).joined(separator: ", "))
            }
            options.device = name == .desktop ? nil : name
        },
        check: { options throws(UsageError) in try options.checkViewSize() },
        copy: { from, to in to.device = from.device })

    /// A language tag as `Accept-Language` carries it: letters, then `-` and letters or digits.
    package static func isLanguageTag(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = parts.first, (1...8).contains(first.count), first.allSatisfy({ $0.isASCII && $0.isLetter }) else { return false }
        return parts.dropFirst().allSatisfy { part in
            (1...8).contains(part.count) && part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
        }
    }

    static let languages = MeasuringOption(
        name: "--lang", negation: nil, placeholder: "tags", valueIsOptional: false, suiteKey: .value("languages"),
        help: "The languages the page is asked for, most wanted first, comma-separated (fr-FR,fr): Accept-Language "
            + "and navigator.language.",
        defaultText: MeasureOptions.defaultLanguages.joined(separator: ","), rangeText: nil,
        read: { given, options throws(UsageError) in
            options.languages = try given.list(example: "fr-FR,fr", noun: "language tags") { isLanguageTag($0) ? $0 : nil }
        },
        readSuite: { value, key, options throws(SuiteValueProblem) in
            let problem = SuiteValueProblem("'\(key)' must be a list of language tags, e.g. [\"fr-FR\", \"fr\"]")
            let list = try SuiteValue.list(value, key)
            let tags = list.compactMap { $0.string.flatMap { isLanguageTag($0) ? $0 : nil } }
            guard tags.count == list.count, !tags.isEmpty else { throw problem }
            options.languages = tags
        },
        check: { _ throws(UsageError) in },
        copy: { from, to in to.languages = from.languages })

    static let colorScheme = MeasuringOption(
        name: "--color-scheme", negation: nil, placeholder: "name", valueIsOptional: false, suiteKey: .value("colorScheme"),
        help: "prefers-color-scheme, for style sheets and scripts: light or dark.",
        defaultText: ColorScheme.light.rawValue, rangeText: nil,
        read: { given, options throws(UsageError) in
            let scheme: ColorScheme = try given.choice(noun: "color scheme")
            options.colorScheme = scheme == .light ? nil : scheme
        },
        readSuite: { value, key, options throws(SuiteValueProblem) in
            guard let text = value.string, let scheme = ColorScheme(rawValue: text) else {
                throw SuiteValueProblem("'\(key)' must be one of: " + ColorScheme.allCases.map(\.rawValue).joined(separator: ", "))
            }
            options.colorScheme = scheme == .light ? nil : scheme
        },
        check: { _ throws(UsageError) in },
        copy: { from, to in to.colorScheme = from.colorScheme })

    package static let then = MeasuringOption(
        name: "--then", negation: nil, placeholder: "step", valueIsOptional: false, suiteKey: .value("steps"),
        help: "Once the page has its height, do this in the same view and measure again until settled (repeat it for "
            + "more steps, applied in order): " + PageStep.forms.joined(separator: ", ") + " (a rotation: size=844x390). "
            + "The report's steps say what each app strategy shows after each; heights stay in CSS px after zoom= "
            + "(the view shows each CSS px as FACTOR of its own).",
        defaultText: nil, rangeText: nil,
        read: { given, options throws(UsageError) in
            options.steps = (options.steps ?? []) + [try PageStep(parsing: try given.value())]
        },
        readSuite: { value, key, options throws(SuiteValueProblem) in
            let steps = try strings(value, key, "step", { text throws(UsageError) in try PageStep(parsing: text) })
            options.steps = steps.isEmpty ? nil : steps
        },
        check: { options throws(UsageError) in try PageStep.checkZoom(options.steps ?? [], pageZoom: options.zoom) },
        copy: { from, to in to.steps = from.steps })
}
