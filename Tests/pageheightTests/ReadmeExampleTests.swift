import PageHeightTestSupport
import Foundation
import Testing

extension CommandLineTests {
    /// The README's one-page examples are what the binary prints (times masked: they vary run to run).
    @Test func theReadmesOnePageExamplesAreCurrent() throws {
        let readme = try String(contentsOf: PageHeightBinary.root.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "## One page").dropFirst().first)
        let block = try #require(section.components(separatedBy: "```").dropFirst().first)
        var examples: [(arguments: [String], output: String)] = []
        for line in block.split(separator: "\n") {
            if line.hasPrefix("$ scripts/pageheight ") {
                examples.append((line.dropFirst("$ scripts/pageheight ".count).split(separator: " ").map(String.init), ""))
            } else if !examples.isEmpty {
                examples[examples.count - 1].output += line + "\n"
            }
        }
        #expect(examples.count >= 3)
        let times = #/\d+\.\d\d s/#
        for (arguments, output) in examples {
            let result = try PageHeightBinary.run(arguments)
            #expect(result.stdout.replacing(times, with: "T s") == output.replacing(times, with: "T s"),
                    "\(arguments.joined(separator: " "))")
        }
    }
}
