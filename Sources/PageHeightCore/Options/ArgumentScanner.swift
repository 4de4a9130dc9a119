import Foundation

/// The one loop that reads every command's `[String]`: operands, options as `--name value` or
/// `--name=value`, flags, and `--`, which ends the options. Each command says what an operand
/// is and what each option name means.
package enum ArgumentScanner {
    /// Calls `operand` for each operand and `option` for each option, in order. `option` reads
    /// the option's value (if any) through the `GivenOption` it is handed.
    package static func scan(_ arguments: [String], operand: (String) -> Void,
                     option: (inout GivenOption) throws(UsageError) -> Void) throws(UsageError) {
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || !argument.hasPrefix("-") || argument == "-" {
                operand(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            var given = GivenOption(argument, following: index < arguments.count ? arguments[index] : nil)
            try option(&given)
            if given.tookFollowing { index += 1 }
        }
    }
}

/// One option on a command line, as the scanner hands it to a command.
package struct GivenOption {
    /// `--width` (without `=value`).
    package let name: String
    /// The value after `=`, if the option had one.
    package let inline: String?
    private let following: String?
    fileprivate private(set) var tookFollowing = false

    fileprivate init(_ argument: String, following: String?) {
        if let equals = argument.firstIndex(of: "="), argument.hasPrefix("--") {
            name = String(argument[..<equals])
            inline = String(argument[argument.index(after: equals)...])
        } else {
            name = argument
            inline = nil
        }
        self.following = following
    }

    /// The option's value: after `=`, else the next argument (which it then consumes).
    package mutating func value() throws(UsageError) -> String {
        if let inline { return inline }
        guard let following else { throw UsageError("missing value for '\(name)'") }
        tookFollowing = true
        return following
    }

    /// Refuses a value for an option that takes none.
    package func flag() throws(UsageError) {
        if inline != nil { throw UsageError("'\(name)' takes no value") }
    }

    /// The value as `parse` reads it; where `parse` gives nil, the error `refusal` words for the text.
    package mutating func value<Parsed>(_ parse: (String) -> Parsed?, refusal: (String) -> String) throws(UsageError) -> Parsed {
        let text = try value()
        guard let parsed = parse(text) else { throw UsageError(refusal(text)) }
        return parsed
    }

    /// A whole number.
    package mutating func integer() throws(UsageError) -> Int {
        let name = name
        return try value({ Int($0) }, refusal: { "'\(name)' takes a whole number, got '\($0)'" })
    }

    /// A finite number.
    package mutating func number() throws(UsageError) -> Double {
        let name = name
        return try value({ Double($0).flatMap { $0.isFinite ? $0 : nil } }, refusal: { given in
            // `--header 'Cookie: a=b'`: the native view's height, not a request header.
            name == "--header" && given.contains(":")
                ? "'--header' is the height in px of a native view above the page; to send a request header, use "
                    + "--request-header 'Name: value' (a cookie: --cookie name=value)"
                : "'\(name)' takes a number, got '\(given)'"
        })
    }

    /// Sleeps in seconds separated by commas.
    package mutating func sleeps() throws(UsageError) -> GrowingDelaySchedule {
        let text = try value()
        guard let schedule = GrowingDelaySchedule(parsing: text) else {
            throw UsageError("'\(name)' takes positive sleeps in seconds separated by commas, e.g. 0.1,0.2,0.5; got '\(text)'")
        }
        return schedule
    }

    /// A comma-separated list of numbers (or of what `noun` says), each once (in the order first
    /// given); `example` shows one in the error.
    package mutating func list<T: Hashable>(example: String, noun: String = "numbers",
                                            _ convert: (String) -> T?) throws(UsageError) -> [T] {
        let text = try value()
        let items = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        let values = items.compactMap(convert)
        guard !items.isEmpty, values.count == items.count else {
            throw UsageError("'\(name)' takes a comma-separated list of \(noun), e.g. \(example); got '\(text)'")
        }
        return values.uniqued()
    }

    /// One of `choices` (raw values); `noun` names what was not known in the error.
    package mutating func choice<T: RawRepresentable & CaseIterable>(noun: String = "value") throws(UsageError) -> T where T.RawValue == String {
        let text = try value()
        guard let chosen = T(rawValue: text) else {
            throw UsageError("unknown \(noun) '\(text)' for '\(name)' (one of: " + T.allCases.map(\.rawValue).joined(separator: ", ") + ")")
        }
        return chosen
    }
}

/// Refuses `value` outside `range`: `'--width' must be between 1 and 100000, got -5`.
package func checkRange<T: Comparable>(_ value: T, _ name: String, _ range: ClosedRange<T>) throws(UsageError) {
    guard range.contains(value) else {
        throw UsageError("'\(name)' must be between \(range.lowerBound) and \(range.upperBound), got \(value)")
    }
}

