import PageHeightTestSupport
import Foundation
import Testing

/// docs/scale-out.md's examples, their shell lines as printed (the Kubernetes Job's command and
/// the CI matrix's step), run on a small list with `pageheight` on the PATH: every shard exits 0
/// although a page of the list is not ok, the shards cover the list once, a shard the list leaves
/// empty says so, and a real failure (a list that does not exist) is not hidden (issue 45.4).
@Suite(.serialized)
struct ScaleOutExampleTests {
    static let document = PageHeightBinary.root.appendingPathComponent("docs/scale-out.md")

    /// The Kubernetes Job's command: the folded scalar (`- >-`) under `args`, its lines joined.
    static func kubernetesCommand(_ text: String) throws -> String {
        let lines = text.components(separatedBy: "\n")
        let start = try #require(lines.firstIndex { $0.trimmingCharacters(in: .whitespaces) == "- >-" })
        let indent = lines[start].prefix { $0 == " " }.count
        return lines[(start + 1)...].prefix { $0.prefix { $0 == " " }.count > indent && !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            .map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
    }

    /// The CI matrix's measuring step: the first `- run: |` block, its continued lines joined.
    static func ciCommand(_ text: String) throws -> String {
        let lines = text.components(separatedBy: "\n")
        let start = try #require(lines.firstIndex { $0.trimmingCharacters(in: .whitespaces) == "- run: |" })
        let indent = lines[start].prefix { $0 == " " }.count
        return lines[(start + 1)...].prefix { $0.prefix { $0 == " " }.count > indent }
            .map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: "\n")
            .replacingOccurrences(of: "\\\n", with: "")
    }

    /// Runs `command` with `sh -c` in `directory`, `pageheight` being the binary under test.
    func shell(_ command: String, in directory: URL, environment: [String: String] = [:]) throws -> PageHeightBinary.Run {
        let bin = directory.appendingPathComponent("bin")
        if !FileManager.default.fileExists(atPath: bin.path) {
            try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(at: bin.appendingPathComponent("pageheight"), withDestinationURL: PageHeightBinary.url)
        }
        var env: [String: String?] = environment
        env["PATH"] = bin.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        return try PageHeightBinary.run(["-c", command], environment: env, in: directory, within: 240,
                                        executable: URL(fileURLWithPath: "/bin/sh"))
    }

    func workspace(_ name: String) throws -> (URL, String, Int) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pageheight-scale-\(getpid())-\(name)")
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("results"), withIntermediateDirectories: true)
        let pages = CommandLineTests.pages
        let entries = ["static.html", "no-such-page.html", "grow-1.html", "hostile/alert.html", "empty.html"].map { pages.appendingPathComponent($0).path }
        let list = directory.appendingPathComponent("list.txt").path
        try entries.joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
        return (directory, list, entries.count)
    }

    func indexes(_ files: [String]) -> [Int] {
        files.flatMap { file in
            ((try? String(contentsOfFile: file, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["index"] as? Int
            }
        }.sorted()
    }

    @Test func theKubernetesJobsCommandRunsEveryShardAndHidesNoRealFailure() throws {
        let text = try String(contentsOf: Self.document, encoding: .utf8)
        let (directory, list, count) = try workspace("kubernetes")
        defer { try? FileManager.default.removeItem(at: directory) }
        let command = try Self.kubernetesCommand(text)
        #expect(command.hasPrefix("pageheight batch ") && command.hasSuffix("; test $? -le 1"), "\(command)")
        let local = command.replacingOccurrences(of: "/pages/list.txt", with: list)
            .replacingOccurrences(of: "/results/", with: directory.appendingPathComponent("results").path + "/")
        var empty = 0
        for index in 0..<8 {
            let run = try shell(local, in: directory, environment: ["JOB_COMPLETION_INDEX": "\(index)"])
            #expect(run.status == 0, "shard \(index + 1): \(run.stderr.suffix(400))")
            if run.stderr.contains("none of the list's \(count) pages falls into this shard; nothing to do") { empty += 1 }
        }
        #expect(empty > 0, "five pages in eight shards leave some empty")
        let files = (0..<8).map { directory.appendingPathComponent("results/shard-\($0).jsonl").path }
        #expect(indexes(files) == Array(0..<count))
        // A pod run again resumes its file: nothing measured twice.
        _ = try shell(local, in: directory, environment: ["JOB_COMPLETION_INDEX": "0"])
        #expect(indexes(files) == Array(0..<count))
        let missing = try shell(command.replacingOccurrences(of: "/pages/list.txt", with: directory.appendingPathComponent("nosuch.txt").path)
            .replacingOccurrences(of: "/results/", with: directory.appendingPathComponent("results").path + "/"),
                                in: directory, environment: ["JOB_COMPLETION_INDEX": "0"])
        #expect(missing.status != 0, "a missing list is a real failure")
    }

    @Test func theCIMatrixStepRunsEveryShard() throws {
        let text = try String(contentsOf: Self.document, encoding: .utf8)
        let (directory, list, count) = try workspace("ci")
        defer { try? FileManager.default.removeItem(at: directory) }
        let command = try Self.ciCommand(text)
        #expect(command.hasPrefix("pageheight batch ") && command.hasSuffix("; test $? -le 1"), "\(command)")
        for shard in 1...4 {
            let local = command.replacingOccurrences(of: "${{ matrix.shard }}", with: "\(shard)")
                .replacingOccurrences(of: " pages.txt", with: " " + list)
            let run = try shell(local, in: directory)
            #expect(run.status == 0, "shard \(shard): \(run.stderr.suffix(400))")
        }
        #expect(indexes((1...4).map { directory.appendingPathComponent("shard-\($0).jsonl").path }) == Array(0..<count))
    }
}
