import PageHeightCore

/// The arguments of a subcommand (`check`, `sweep`, `replay`, `tune`): parsed from the words
/// after its name (pure), then validated; with its usage line and help.
protocol SubcommandArguments: Sendable {
    /// Which of the subcommands that share these arguments.
    associatedtype Command: Sendable

    static func parse(_ arguments: [String], command: Command) throws(UsageError) -> Self
    /// Checks ranges and combinations that parsing alone cannot.
    func validate() throws(UsageError)
    /// `-h` or `--help` was given.
    var help: Bool { get }
    static func usage(of command: Command) -> String
    static func help(of command: Command) -> String
}

extension CheckArguments: SubcommandArguments {
    static func usage(of command: Command) -> String { command == .check ? checkUsage : sweepUsage }
    static func help(of command: Command) -> String { command == .check ? checkHelp : sweepHelp }
}

extension TuneArguments: SubcommandArguments {
    static func usage(of command: Command) -> String { command == .replay ? replayUsage : tuneUsage }
    static func help(of command: Command) -> String { command == .replay ? replayHelp : tuneHelp }
}
