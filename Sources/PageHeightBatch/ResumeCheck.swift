import Foundation
import PageHeightCore

/// Whether an output file may be resumed by this command: every result already in it must have
/// been measured from the same list entry and with the same measuring options, or the file would
/// end up mixing two lists or two settings (a width-390 half and a width-1024 half).
public enum ResumeCheck {
    /// What one result already in the output says about how it was made.
    public struct Recorded: Sendable, Equatable {
        public var index: Int
        public var url: String
        /// The result's `options` object, as JSON text.
        public var options: String
        /// Its status, and its `timings.total` (nil when the line has none).
        public var status: PageStatus?
        public var seconds: Double?
        /// Its line in the file, from 1 (0: not known).
        public var line: Int

        public init(index: Int, url: String, options: String, status: PageStatus? = nil, seconds: Double? = nil, line: Int = 0) {
            (self.index, self.url, self.options, self.status, self.seconds, self.line) = (index, url, options, status, seconds, line)
        }
    }

    /// Why `recorded` cannot be resumed with `list` and `options`, naming the first difference;
    /// nil when it can. A file whose lines are not all results (`unreadable`, their numbers), or
    /// that holds two results for one entry, was changed by someone else: which line is right is
    /// not for pageheight to guess, and counting both would make the summary wrong.
    public static func mismatch(_ recorded: [Recorded], list: PageList, options: MeasureOptions, unreadable: [Int] = []) -> String? {
        if let line = unreadable.first {
            return "its line \(line) is not a result (a JSON object with an index)"
                + (unreadable.count > 1 ? ", nor are \(unreadable.count - 1) more" : "") + "; remove such lines, or start again without --resume"
        }
        var first: [Int: Int] = [:]
        for record in recorded {
            if let earlier = first[record.index] {
                return "its lines \(earlier) and \(record.line) both hold a result for entry \(record.index); keep one, or start again without --resume"
            }
            first[record.index] = record.line
        }
        let current = optionValues(encode(options))
        // An option a result does not name was written before the option existed, at the value
        // it had then: its default, but the real clock (the virtual one came later, and became
        // the default later still).
        var then = MeasureOptions()
        then.clock = .real
        let defaults = optionValues(encode(then))
        let entries = Dictionary(list.entries.map { ($0.index, $0.page) }, uniquingKeysWith: { a, _ in a })
        for record in recorded.sorted(by: { $0.index < $1.index }) {
            let was = optionValues(record.options).merging(defaults) { recorded, _ in recorded }
            if let name = current.keys.sorted().first(where: { current[$0] != was[$0] }) {
                return "its results were measured with \(name) \(was[name] ?? "unset"), this command measures with "
                    + "\(current[name] ?? "unset") (result \(record.index))"
            }
            guard let entry = entries[record.index] else {
                return "it holds a result for entry \(record.index), which this list does not have"
            }
            let url = (try? PageSource.parse(entry, standardInput: { nil }))?.url ?? entry
            if url != record.url {
                return "it was written for another list: entry \(record.index) is \(record.url.prefix(120)) there, "
                    + "\(url.prefix(120)) here"
            }
        }
        return nil
    }

    private static func encode(_ options: MeasureOptions) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(options)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// Each top-level option as canonical JSON text, by name.
    private static func optionValues(_ json: String) -> [String: String] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else { return [:] }
        var values: [String: String] = [:]
        for (name, value) in object {
            let data = try? JSONSerialization.data(withJSONObject: [value], options: [.sortedKeys, .fragmentsAllowed])
            values[name] = data.map { String(String(decoding: $0, as: UTF8.self).dropFirst().dropLast()) } ?? "\(value)"
        }
        return values
    }
}
