import Foundation
@testable import PageHeightCore
@testable import pageheight
import PageHeightTestSupport
import Testing

/// `--then` on the command line.
@Suite struct StepArgumentsTests {
    @Test func stepsAreTakenInOrder() throws {
        let options = try CommandLineArguments.parse(["--then", "font-size=20", "--then=width=844", "--then", "click=details > summary", "x"]).options
        #expect(options.steps == [.fontSize(20), .width(844), .click("details > summary")])
        #expect(try CommandLineArguments.parse(["x"]).options.steps == nil)
    }

    @Test func aBadStepIsAUsageErrorThatListsTheSteps() throws {
        #expect { try CommandLineArguments.parse(["--then", "rotate=90", "x"]) } throws: { error in
            guard let usage = error as? UsageError else { return false }
            return usage.message.contains("unknown step 'rotate'") && usage.message.contains("color-scheme=dark|light")
        }
        #expect(throws: UsageError.self) { try CommandLineArguments.parse(["--zoom", "2", "--then", "text-zoom=1.5", "x"]).validate() }
        let run = try PageHeightBinary.run(["--then", "width=wide", "page.html"])
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr.hasPrefix("Error: 'width=wide': width takes a whole number of CSS px"), "\(run.stderr)")
        #expect(run.stderr.contains("See 'pageheight --help'"))
    }
}
