import Foundation

/// A subcommand's parsed arguments, or the exit status when there is nothing to run.
enum ParsedSubcommand<Arguments> {
    case run(Arguments)
    case exit(Int32)
}

/// Parses and validates a subcommand's arguments: on to the command, or out with the usage
/// error (64) or after the help (0).
func parseSubcommand<Arguments: SubcommandArguments>(_ type: Arguments.Type, _ arguments: [String],
                                                      _ command: Arguments.Command) -> ParsedSubcommand<Arguments> {
    do {
        let parsed = try Arguments.parse(arguments, command: command)
        try parsed.validate()
        if parsed.help {
            StandardOutput.line(Arguments.help(of: command))
            return .exit(0)
        }
        return .run(parsed)
    } catch {
        return .exit(subcommandUsageError(error.message, usage: Arguments.usage(of: command)))
    }
}

/// A usage error of a subcommand: `Error: …`, the subcommand's usage line and the hint; 64.
func subcommandUsageError(_ message: String, usage: String) -> Int32 {
    StandardError.write("Error: \(message)\n\(usage)\n\(HelpText.hint)\n")
    return 64
}
