import PageHeightTuning
@testable import pageheight
import Testing

@Suite struct TuneArgumentsTests {
    @Test func replayTakesTheAppsScheduleThresholdAndFit() throws {
        let parsed = try TuneArguments.parse(["--schedule", "0.5,1", "--threshold=2", "--no-fit", "--tolerance", "1", "--json", "a.jsonl", "-"],
                                             command: .replay)
        #expect(parsed.schedule?.delays == [0.5, 1] && parsed.threshold == 2 && parsed.fit == false)
        #expect(parsed.tolerance == 1 && parsed.json && parsed.inputs == ["a.jsonl", "-"])
        try parsed.validate()
        let defaults = try TuneArguments.parse(["a.jsonl"], command: .replay)
        #expect(defaults.schedule == nil && defaults.threshold == nil && defaults.fit == nil && defaults.tolerance == 5)
    }

    @Test func tuneTakesCandidatesThresholdsAndTheFamilysGrid() throws {
        let parsed = try TuneArguments.parse([
            "--candidate", "0.2,0.3", "--candidate=1", "--thresholds", "1,5,5", "--polls", "2,4", "--first", "0.1",
            "--growth", "1,2", "--last", "3,6", "--report", "/tmp/tune.html", "r.jsonl",
        ], command: .tune)
        #expect(parsed.candidates.map(\.delays) == [[0.2, 0.3], [1]])
        #expect(parsed.thresholds == [1, 5], "repeated values count once")
        #expect(parsed.family == ScheduleFamily(polls: [2, 4], firstDelays: [0.1], growthFactors: [1, 2], lastPolls: [3, 6]))
        #expect(parsed.report == "/tmp/tune.html")
        try parsed.validate()
        let defaults = try TuneArguments.parse(["r.jsonl"], command: .tune)
        #expect(defaults.family == ScheduleFamily() && defaults.thresholds == [0, 2, 5, 10, 20] && defaults.candidates.isEmpty)
    }

    @Test func mistakesAreUsageErrors() {
        let twenty = (1...20).map(String.init).joined(separator: ",")
        let cases: [([String], TuneArguments.Command, String)] = [
            (["--bogus", "a"], .tune, "unknown option '--bogus'"),
            (["--schedule", "0.1,x", "a"], .replay, "'--schedule' takes positive sleeps in seconds separated by commas, e.g. 0.1,0.2,0.5; got '0.1,x'"),
            (["--candidate", "-1", "a"], .tune, "'--candidate' takes positive sleeps"),
            (["--schedule", "1", "a"], .tune, "'--schedule' is an option of 'pageheight replay'"),
            (["--report", "x.html", "a"], .replay, "'--report' is an option of 'pageheight tune'"),
            (["--polls", "2,,3", "a"], .tune, "'--polls' takes a comma-separated list of numbers"),
            (["--threshold"], .replay, "missing value for '--threshold'"),
            (["--json=yes", "a"], .tune, "'--json' takes no value"),
            ([], .tune, "missing reports"),
            (["-", "-"], .replay, "standard input ('-') can be read only once"),
            (["--growth", "0.5", "a"], .tune, "'--growth' must be between 1.0 and 100.0, got 0.5"),
            (["--polls", "0", "a"], .tune, "'--polls' must be between 1 and 100, got 0"),
            (["--thresholds", "-1", "a"], .tune, "'--thresholds' must be between 0.0 and 100000.0, got -1.0"),
            (["--report", "/no/such/dir/t.html", "a"], .tune, "'--report': no such directory: /no/such/dir"),
            (["--polls", twenty, "--first", twenty, "--growth", twenty, "--last", twenty, "--thresholds", "1,2,3", "a"], .tune,
             "the family is too large: 160000 schedules x 3 thresholds (at most 200000 candidates)"),
        ]
        for (arguments, command, message) in cases {
            do {
                let parsed = try TuneArguments.parse(arguments, command: command)
                try parsed.validate()
                Issue.record("accepted \(arguments)")
            } catch {
                #expect(error.message.hasPrefix(message), "\(arguments): \(error.message)")
            }
        }
    }

    @Test func helpNamesEveryOptionWithItsDefault() {
        for option in ["--schedule <sleeps>", "--threshold <px>", "--fit / --no-fit", "--tolerance <px>", "--json", "(default: 5)"] {
            #expect(TuneArguments.replayHelp.contains(option), "\(option)")
        }
        for option in ["--candidate <sleeps>", "--thresholds <list>", "(default: 0,2,5,10,20)", "--polls <list>",
                       "(default: 1,2,3,4,5,6,8,10,12)", "--first <list>", "--growth <list>", "--last <list>", "--report <file.html>"] {
            #expect(TuneArguments.tuneHelp.contains(option), "\(option)")
        }
        #expect(TuneArguments.tuneHelp.contains("USAGE: pageheight tune [options] <reports> ..."))
        #expect(HelpText.usage.contains("pageheight tune [options] <reports> ...") && HelpText.help.contains("'pageheight replay --help'"))
    }
}
