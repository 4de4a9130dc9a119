import Foundation

/// What is wrong with one value of a suite file: `'quiet' must be a number between 0 and 600`.
package struct SuiteValueProblem: Error {
    package var detail: String
    package init(_ detail: String) { self.detail = detail }
}

/// Reads the JSON values of a suite file's keys.
package enum SuiteValue {
    package static func number(_ value: Any, _ key: String, _ range: ClosedRange<Double>) throws(SuiteValueProblem) -> Double {
        guard let number = value as? NSNumber, !isBoolean(value), range.contains(number.doubleValue) else {
            throw SuiteValueProblem("'\(key)' must be a number between \(DecimalText.format(range.lowerBound)) and \(DecimalText.format(range.upperBound))")
        }
        return number.doubleValue
    }

    package static func whole(_ value: Any, _ key: String, _ range: ClosedRange<Int>) throws(SuiteValueProblem) -> Int {
        guard let number = value as? NSNumber, !isBoolean(value), number.doubleValue == number.doubleValue.rounded(),
              range.contains(number.intValue) else {
            throw SuiteValueProblem("'\(key)' takes whole numbers between \(range.lowerBound) and \(range.upperBound), got \(value)")
        }
        return number.intValue
    }

    package static func flag(_ value: Any, _ key: String) throws(SuiteValueProblem) -> Bool {
        guard isBoolean(value), let bool = value as? Bool else { throw SuiteValueProblem("'\(key)' must be true or false") }
        return bool
    }

    package static func list(_ value: Any, _ key: String) throws(SuiteValueProblem) -> [Any] {
        guard let array = value as? [Any], !array.isEmpty else { throw SuiteValueProblem("'\(key)' must be a non-empty list") }
        return array
    }

    /// JSON `true`/`false`: on Linux every NSNumber casts to Bool, so ask for its type.
    package static func isBoolean(_ value: Any) -> Bool {
        guard let number = value as? NSNumber else { return false }
        return String(describing: type(of: number)).contains("Boolean") || String(cString: number.objCType) == "B"
    }
}
