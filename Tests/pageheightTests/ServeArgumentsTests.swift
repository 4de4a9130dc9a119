@testable import pageheight
import PageHeightCore
import PageHeightServe
import Testing

/// `pageheight serve`'s command line, parsed and validated without running anything.
struct ServeArgumentsTests {
    func parsed(_ arguments: [String]) throws(UsageError) -> ServeArguments {
        let parsed = try ServeArguments.parse(arguments, command: .serve)
        try parsed.validate()
        return parsed
    }

    func refusal(_ arguments: [String]) -> String? {
        do throws(UsageError) {
            _ = try parsed(arguments)
            return nil
        } catch {
            return error.message
        }
    }

    @Test func measuringOptionsAreEveryRequestsDefaults() throws {
        let arguments = try parsed(["--listen", "127.0.0.1:9000", "-j", "3", "--queue", "5", "--offline", "--timeout", "8",
                                    "--width", "768", "--allow-host", "10.0.0.5:8080", "--drain", "12"])
        #expect(arguments.listen == ListenAddress(host: "127.0.0.1", port: 9000))
        let settings = try arguments.settings()
        #expect(settings.jobs == 3 && settings.queue == 5 && settings.drainSeconds == 12)
        #expect(settings.defaults.offline && settings.defaults.timeout == 8 && settings.defaults.width == 768)
        #expect(settings.defaults.allowedHosts == ["10.0.0.5:8080"] && settings.token == nil && settings.pagesDirectory == nil)
        let defaults = try parsed([]).settings()
        #expect(defaults.listen == .loopback && defaults.queue == defaults.jobs * 8 && defaults.limits == RequestLimits())
    }

    @Test func whatIsUnsafeOrMeaninglessIsAUsageError() {
        #expect(refusal(["--listen", "0.0.0.0:8080"])?.contains("give '--token-file FILE'") == true)
        #expect(refusal(["--listen", "[::]:8080"])?.contains("give '--token-file FILE'") == true)
        #expect(refusal(["--listen", "example.com:80"])?.contains("takes HOST:PORT with an IP address") == true)
        #expect(refusal(["--cookies", "c.txt"])?.contains("not an option of 'pageheight serve'") == true)
        #expect(refusal(["page.html"])?.contains("takes no page") == true)
        #expect(refusal(["--jobs", "0"])?.contains("'--jobs' must be between 1 and 64") == true)
        #expect(refusal(["--max-body", "10"]) != nil)
        #expect(refusal(["--bogus"]) == "unknown option '--bogus'")
        #expect(refusal(["--help", "--listen", "0.0.0.0:1"]) == nil, "help first")
    }

    @Test func helpListsTheServersOptionsAndTheMeasuringOnesButCookiesFiles() {
        let help = ServeArguments.help
        for text in ["USAGE: pageheight serve", "--listen <host:port>", "--token-file <file>", "--pages-dir <dir>", "--drain <seconds>",
                     "--timeout <seconds>", "--cookie <name=value>"] {
            #expect(help.contains(text), "\(text)")
        }
        #expect(!help.contains("--cookies <file>") && !help.contains("Netscape"))
    }
}
