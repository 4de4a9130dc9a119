import PageHeightCore

extension MeasuringOption {
    /// The help lines of every option, as `--help` prints them.
    static var helpLines: String { helpLines(except: []) }

    /// The help lines of every option but those named in `switches`.
    static func helpLines(except switches: Set<String>) -> String {
        all.filter { !switches.contains($0.name) }.map { option in
            let notes = [option.rangeText, option.defaultText.map { "default: \($0)" }].compactMap { $0.map { " (\($0))" } }
            return HelpText.entry(option.synopsis(markdown: false), option.help + notes.joined())
        }.joined(separator: "\n")
    }

    /// The switches of the options a suite has: those `check` and `sweep` take over it
    /// (`sweep` without the ones it takes lists of).
    static func overrideSwitches(for command: CheckArguments.Command) -> [String] {
        all.filter { $0.suiteKey != .none && (command == .check || !$0.suiteKey.isCases) }.flatMap(\.switches)
    }
}
