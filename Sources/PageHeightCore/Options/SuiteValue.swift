import Foundation

/// What is wrong with one value of a suite file: `'quiet' must be a number between 0 and 600`.
package struct SuiteValueProblem: Error {
    package var detail: String
    package init(_ detail: String) { self.detail = detail }
}

/// Reads the JSON values of a suite file's keys.
package enum SuiteValue {
    package static func number(_ value: JSONValue, _ key: String, _ range: ClosedRange<Double>) throws(SuiteValueProblem) -> Double {
        guard let number = value.number, range.contains(number) else {
            throw SuiteValueProblem("'\(key)' must be a number between \(DecimalText.format(range.lowerBound)) and \(DecimalText.format(range.upperBound))")
        }
        return number
    }

    package static func whole(_ value: JSONValue, _ key: String, _ range: ClosedRange<Int>) throws(SuiteValueProblem) -> Int {
        guard let number = value.number, number == number.rounded(), number >= Double(range.lowerBound),
              number <= Double(range.upperBound) else {
            throw SuiteValueProblem("'\(key)' takes whole numbers between \(range.lowerBound) and \(range.upperBound), got \(value)")
        }
        return Int(number)
    }

    package static func flag(_ value: JSONValue, _ key: String) throws(SuiteValueProblem) -> Bool {
        guard let bool = value.bool else { throw SuiteValueProblem("'\(key)' must be true or false") }
        return bool
    }

    package static func list(_ value: JSONValue, _ key: String) throws(SuiteValueProblem) -> [JSONValue] {
        guard let array = value.array, !array.isEmpty else { throw SuiteValueProblem("'\(key)' must be a non-empty list") }
        return array
    }

    /// A non-empty string.
    package static func text(_ value: JSONValue) -> String? {
        guard let text = value.string, !text.isEmpty else { return nil }
        return text
    }
}
