import PageHeightCore

/// A request's `"options"`: the suite file's keys (`MeasuringOption.all`, the one table the
/// command line and suites read), over the server's defaults, with `widths`, `fontSizes` and
/// `zooms` as lists whose every combination is measured.
///
/// A key the server does not take from a client is refused by name: `cookiesFile` reads a file of
/// the server's (send `cookies`). The timeout is capped by the server's.
struct RequestOptions {
    /// One set of options per combination, widths first, then font sizes, then zooms.
    var combinations: [MeasureOptions]
    /// Whether a list was given (the answer is then a list of reports, even of one).
    var isList: Bool

    static let listKeys = ["widths", "fontSizes", "zooms"]
    static let refused: [String: String] = ["cookiesFile": "reads a file of the server's: send the cookies themselves in \"cookies\""]
    /// The keys `"options"` may have.
    static var keys: [String] { listKeys + MeasuringOption.suiteKeys.filter { refused[$0] == nil } }

    /// Reads `object` (nil: no options) over `defaults`; `steps` is the request's own `"steps"`.
    static func read(_ object: [String: JSONValue]?, steps: JSONValue?, defaults: MeasureOptions,
                     limits: RequestLimits) throws(APIError) -> RequestOptions {
        let given = object ?? [:]
        for key in given.keys.sorted() {
            if let why = refused[key] { throw .badRequest("'\(key)' is not taken by the server: it \(why)", field: "options.\(key)") }
            guard keys.contains(key) else {
                throw .badRequest("unknown key '\(key)' in options (known: \(keys.sorted().joined(separator: ", ")))", field: "options.\(key)")
            }
        }
        var options = defaults
        for option in MeasuringOption.all {
            guard case .value(let key) = option.suiteKey, let value = given[key] else { continue }
            do throws(SuiteValueProblem) {
                try option.readSuite(value, key, &options)
            } catch {
                throw .badRequest(error.detail, field: "options.\(key)")
            }
        }
        if let steps {
            if given["steps"] != nil { throw .badRequest("'steps' is given twice: in the request and in its options", field: "steps") }
            do throws(SuiteValueProblem) {
                try MeasuringOption.then.readSuite(steps, "steps", &options)
            } catch {
                throw .badRequest(error.detail, field: "steps")
            }
        }
        options.timeout = min(options.timeout, defaults.timeout)
        if given["device"] != nil {
            options.takeDeviceViewport(keepingWidth: given["widths"] != nil, keepingHeight: given["height"] != nil)
        }
        let widths = try list(given["widths"], "widths", whole: MeasuringOption.widthRange) ?? [Double(options.width)]
        let fontSizes = try list(given["fontSizes"], "fontSizes", whole: MeasuringOption.fontSizeRange) ?? [Double(options.fontSize)]
        let zooms = try list(given["zooms"], "zooms", range: MeasuringOption.zoomRange) ?? [options.zoom]
        let count = widths.count * fontSizes.count * zooms.count
        guard count <= limits.combinations else {
            throw .badRequest("\(count) combinations of widths, font sizes and zooms; at most \(limits.combinations) a request",
                              field: "options.widths")
        }
        var combinations: [MeasureOptions] = []
        for width in widths {
            for fontSize in fontSizes {
                for zoom in zooms {
                    var one = options
                    (one.width, one.fontSize, one.zoom) = (Int(width), Int(fontSize), zoom)
                    do throws(UsageError) {
                        try MeasuringOption.validate(one)
                    } catch {
                        throw .badRequest(error.message, field: "options")
                    }
                    combinations.append(one)
                }
            }
        }
        return RequestOptions(combinations: combinations, isList: listKeys.contains { given[$0] != nil })
    }

    private static func list(_ value: JSONValue?, _ key: String, whole: ClosedRange<Int>) throws(APIError) -> [Double]? {
        try list(value, key, range: Double(whole.lowerBound)...Double(whole.upperBound), whole: true)
    }

    private static func list(_ value: JSONValue?, _ key: String, range: ClosedRange<Double>, whole: Bool = false) throws(APIError) -> [Double]? {
        guard let value else { return nil }
        let noun = whole ? "whole numbers" : "numbers"
        let problem = APIError.badRequest("'\(key)' takes a non-empty list of \(noun) from \(DecimalText.format(range.lowerBound)) "
            + "to \(DecimalText.format(range.upperBound)), e.g. [\(DecimalText.format(range.lowerBound))]", field: "options.\(key)")
        guard let items = value.array, !items.isEmpty else { throw problem }
        var numbers: [Double] = []
        for item in items {
            guard let number = item.number, range.contains(number), !whole || number == number.rounded() else { throw problem }
            if !numbers.contains(number) { numbers.append(number) }
        }
        return numbers
    }
}
