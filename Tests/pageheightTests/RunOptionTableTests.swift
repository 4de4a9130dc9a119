import PageHeightBatch
@testable import PageHeightCore
@testable import pageheight
import Testing

/// The table of the options subcommands share (`RunOption`) against what it drives: parsing in
/// every subcommand, the ranges, and each subcommand's help.
@Suite struct RunOptionTableTests {
    @Test func eachSwitchBelongsToOneOptionAndNoneIsAMeasuringOption() {
        let switches = RunOption.all.flatMap(\.switches)
        #expect(Set(switches).count == switches.count)
        #expect(!switches.contains { MeasuringOption.named($0) != nil })
    }

    /// Every subcommand that takes an option reads it into the same place, with the same range.
    @Test func everySubcommandReadsAndChecksTheSameOption() throws {
        let check = try CheckArguments.parse(["--jobs", "3", "--repeat", "2", "--template", "t.html", "s.json"], command: .check)
        let sweep = try CheckArguments.parse(["--jobs", "3", "--repeat", "2", "--template", "t.html", "a.html"], command: .sweep)
        let batch = try CommandLineArguments.parse(["batch", "--jobs", "3", "--template", "t.html", "list.txt"])
        #expect(check.run.jobs == 3 && sweep.run.jobs == 3 && batch.run.jobs == 3)
        #expect(check.repeatCount == 2 && sweep.repeatCount == 2)
        #expect(check.template == "t.html" && sweep.template == "t.html" && batch.template == "t.html")
        for arguments in [["--jobs", "65", "s.json"], ["--repeat", "0", "s.json"]] {
            #expect(throws: UsageError.self) { try CheckArguments.parse(arguments, command: .check).validate() }
        }
        #expect(throws: UsageError("'--jobs' must be between 1 and 64, got 65")) {
            try CheckArguments.parse(["--jobs", "65", "a.html"], command: .sweep).validate()
        }
        let tune = try TuneArguments.parse(["--tolerance", "7", "--json", "r.jsonl"], command: .tune)
        #expect(tune.tolerance == 7 && tune.json)
        #expect(throws: UsageError("'--repeat' is an option of 'pageheight check' and 'pageheight sweep'")) {
            try TuneArguments.parse(["--repeat", "2", "r.jsonl"], command: .replay)
        }
        #expect(throws: UsageError("'--progress' is an option of 'pageheight batch' and 'pageheight check'")) {
            try CheckArguments.parse(["--progress", "a.html"], command: .sweep)
        }
    }

    @Test func eachSubcommandsHelpListsTheOptionsItTakes() {
        let helps: [(RunOption.Command, String)] = [(.measure, HelpText.help), (.batch, HelpText.help),
                                                    (.check, CheckArguments.checkHelp), (.sweep, CheckArguments.sweepHelp),
                                                    (.replay, TuneArguments.replayHelp), (.tune, TuneArguments.tuneHelp)]
        for (command, help) in helps {
            for option in RunOption.all where option.help[command] != nil {
                #expect(help.contains("  \(option.synopsis) "), "\(command): \(option.synopsis)")
            }
        }
        #expect(!CheckArguments.sweepHelp.contains("--progress"))
    }

    @Test func progressShowsAsAskedForOnATerminalOrNot() {
        var settings = RunSettings()
        #expect(settings.progressDisplay(terminal: true) == .live && settings.progressDisplay(terminal: false) == .none)
        settings.progress = true
        #expect(settings.progressDisplay(terminal: false) == .lines)
        settings.progress = false
        #expect(settings.progressDisplay(terminal: true) == .none)
    }
}
