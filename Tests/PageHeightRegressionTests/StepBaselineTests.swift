import Foundation
import Testing
@testable import PageHeightCore
@testable import PageHeightRegression

/// Suites with steps (`"steps"`): the baseline records each step's result, a check fails on the
/// first step that left it and names that step, the timeline marks the steps.
struct StepBaselineTests {
    let card = RegressionCase(page: "card.html", width: 390, fontSize: 16, zoom: 1)
    let recorded = [Baseline.StepEntry(step: "width=844", status: .ok, height: 980),
                    Baseline.StepEntry(step: "click=summary", status: .ok, height: 1580)]

    func compare(_ steps: [Baseline.StepEntry]?, tolerance: Tolerance = Tolerance(pixels: 5)) -> CaseComparison {
        CaseComparison(card, baseline: Baseline.Entry(card, status: .ok, height: 1300, steps: recorded),
                       current: CaseOutcome(status: .ok, height: 1300, steps: steps), tolerance: tolerance)
    }

    @Test func theSameStepsPass() {
        var steps = recorded
        steps[1].height = 1583
        #expect(compare(steps).verdict == .pass)
    }

    @Test func aStepThatMovedFailsAndIsNamed() {
        var steps = recorded
        steps[0].height = 1010
        let comparison = compare(steps)
        #expect(comparison.verdict == .moved && comparison.failedStep == 0)
        #expect(comparison.message == "card.html (width 390, font 16, zoom 1): 1300 px; step 1 (width=844): baseline after "
            + "width=844: 980 px, now after width=844: 1010 px (tolerance 5 px)")
    }

    @Test func aStepThatFailedOrWentMissingIsAChangedStatus() {
        var steps = recorded
        steps[1] = Baseline.StepEntry(step: "click=summary", status: .failed, height: nil)
        let failed = compare(steps)
        #expect(failed.verdict == .statusChanged && failed.failedStep == 1)
        #expect(failed.message.contains("step 2 (click=summary): baseline after click=summary: 1580 px, now after click=summary: failed"))
        let fewer = compare(Array(recorded.prefix(1)))
        #expect(fewer.verdict == .statusChanged && fewer.failedStep == 1 && fewer.message.contains("now no such step"))
        // The page's own height is compared first.
        let moved = CaseComparison(card, baseline: Baseline.Entry(card, status: .ok, height: 1300, steps: recorded),
                                   current: CaseOutcome(status: .ok, height: 1400, steps: recorded), tolerance: Tolerance())
        #expect(moved.verdict == .moved && moved.failedStep == nil)
    }

    @Test func theBaselineFileKeepsTheSteps() throws {
        let baseline = Baseline(cases: [Baseline.Entry(card, status: .ok, height: 1300, steps: recorded)])
        #expect(baseline.json.contains(#""step" : "click=summary""#))
        let read = try JSONDecoder().decode(Baseline.self, from: Data(baseline.json.utf8))
        #expect(read.cases.first?.steps == recorded)
        // A baseline written before steps existed reads as one without.
        let old = #"{"version": 1, "cases": [{"page": "card.html", "width": 390, "fontSize": 16, "zoom": 1, "status": "ok", "height": 1300}]}"#
        #expect(try JSONDecoder().decode(Baseline.self, from: Data(old.utf8)).cases.first?.steps == nil)
    }

    @Test func theTimelineMarksEachStep() {
        let samples = [HeightSample(t: 0.2, height: 1300, source: .load), HeightSample(t: 6, height: 980, source: .poll)]
        let svg = TimelineChart.svg(samples: samples, baseline: nil, marks: [(5.5, "width=844")])
        #expect(svg.contains(#"<line class="step""#) && svg.contains("5.500 s: width=844"))
    }

    @Test func aSuiteAndItsPagesTakeSteps() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pageheight-\(getpid())-step-suite")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for name in ["a.html", "b.html"] {
            try "<!DOCTYPE html>".write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        let file = directory.appendingPathComponent("suite.json").path
        try #"{"pages": ["a.html", {"path": "b.html", "steps": ["click=details > summary"]}], "steps": ["width=844"]}"#
            .write(toFile: file, atomically: true, encoding: .utf8)
        let suite = try RegressionSuite.load(file)
        let steps = suite.cases.map { suite.options(for: $0).steps ?? [] }
        #expect(steps == [[.width(844)], [.click("details > summary")]])
        try #"{"pages": [{"path": "a.html", "steps": ["rotate=90"]}]}"#.write(toFile: file, atomically: true, encoding: .utf8)
        #expect { try RegressionSuite.load(file) } throws: { error in
            "\(error)".contains("unknown step 'rotate'") && "\(error)".contains("width=PX")
        }
    }
}
