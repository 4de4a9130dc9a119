import Foundation
import PageHeightTestSupport
import Testing

/// The documents' lines, run: the README's two lines (a server, one request, whose answer is the
/// report `pageheight --json` prints for the same URL), every `curl` line of docs/serve.md with
/// the status its comment names, and the Kubernetes Deployment's `args` with its probes' paths.
@Suite(.serialized)
struct ServeDocsTests {
    static let root = PageHeightBinary.root

    /// The ```sh blocks of `section` (from its heading to the next `## `) in `document`.
    static func shellBlocks(_ document: String, section: String? = nil) throws -> [[String]] {
        var text = try String(contentsOf: root.appendingPathComponent(document), encoding: .utf8)
        if let section {
            let start = try #require(text.range(of: "## " + section))
            text = String(text[start.upperBound...])
            if let end = text.range(of: "\n## ") { text = String(text[..<end.lowerBound]) }
        }
        return text.components(separatedBy: "```sh\n").dropFirst().map {
            $0.components(separatedBy: "```").first!.split(separator: "\n").map(String.init)
        }
    }

    /// A loopback HTTP server (Python's) for the fixture pages; killed with the returned process.
    static func pageServer() throws -> (Process, String) {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("pageheight-pages-server-\(getpid())-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        let process = try PageHeightBinary.start(["python3", "-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory",
                                                  root.appendingPathComponent("Pages").path],
                                                 standardOutput: try FileHandle(forWritingTo: out), executable: URL(fileURLWithPath: "/usr/bin/env"))
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            let text = (try? String(contentsOf: out, encoding: .utf8)) ?? ""
            if let match = text.firstMatch(of: /port (\d+)/) { return (process, "http://127.0.0.1:\(match.1)") }
            Thread.sleep(forTimeInterval: 0.05)
        }
        kill(process.processIdentifier, SIGKILL)
        throw ServeProcess.NotReady(description: "the page server did not start")
    }

    @Test func theReadmesTwoLinesGiveTheCLIsReport() throws {
        let lines = try #require(try Self.shellBlocks("README.md", section: "Over HTTP").first)
        #expect(lines.count == 2)
        let start = lines[0].split(separator: " ").map(String.init)
        #expect(Array(start.prefix(2)) == ["pageheight", "serve"] && start.last == "&")
        let (pages, base) = try Self.pageServer()
        defer {
            // SIGKILL: a test process's children may inherit SIGTERM ignored.
            kill(pages.processIdentifier, SIGKILL)
            _ = PageHeightBinary.exit(of: pages, by: Date().addingTimeInterval(10))
        }
        // The page server is on loopback, where the README's page is public: the server is told
        // to allow it, as a server is for a host of its own network.
        let server = try ServeProcess(Array(start.dropFirst(2).dropLast()) + ["--allow-host", base.replacingOccurrences(of: "http://", with: "")])
        let url = base + "/grow-2.5.html"
        #expect(lines[1].hasPrefix("curl -s localhost:8080/v1/measure -d ") && lines[1].contains("https://example.com/article"))
        let request = lines[1].replacingOccurrences(of: "localhost:8080", with: server.url.replacingOccurrences(of: "http://", with: ""))
            .replacingOccurrences(of: "https://example.com/article", with: url)
        let run = try PageHeightBinary.run(["-c", request], within: 120, executable: URL(fileURLWithPath: "/bin/sh"))
        let served = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], "\(run.stdout.prefix(300))")
        let cli = try PageHeightBinary.run(["--json", url])
        let expected = try #require(try JSONSerialization.jsonObject(with: Data(cli.stdout.utf8)) as? [String: Any])
        #expect(served["status"] as? String == "ok" && served["height"] as? Double == 1300)
        for key in ["status", "height", "url", "metric", "total"] {
            #expect("\(served[key] ?? "nil")" == "\(expected[key] ?? "nil")", "\(key)")
        }
        #expect(server.stop()?.status == 0)
    }

    @Test func everyCurlLineOfTheServeDocumentAnswersItsStatus() throws {
        let blocks = try Self.shellBlocks("docs/serve.md")
        #expect(blocks.first?.first?.hasPrefix("pageheight serve ") == true)
        let start = blocks[0][0].split(separator: " ").map(String.init)
        let server = try ServeProcess(Array(start.dropFirst(2)))
        let host = server.url.replacingOccurrences(of: "http://", with: "")
        var curls = 0
        for line in blocks.dropFirst().joined() {
            if line.hasPrefix("curl ") {
                let parts = line.components(separatedBy: "  # ")
                #expect(parts.count == 2, "\(line)")
                let command = parts[0].replacingOccurrences(of: "localhost:8080", with: host) + " -o answer.json -w '%{http_code}'"
                let run = try PageHeightBinary.run(["-c", command], in: server.directory, within: 120, executable: URL(fileURLWithPath: "/bin/sh"))
                #expect(run.stdout == parts[1], "\(line): \(run.stdout) \(run.stderr)")
                let answer = (try? String(contentsOf: server.directory.appendingPathComponent("answer.json"), encoding: .utf8)) ?? ""
                if parts[1] == "200", !line.contains("/metrics") {
                    let first = answer.split(separator: "\n").first.map(String.init) ?? ""
                    #expect((try? JSONSerialization.jsonObject(with: Data((answer.hasPrefix("{") && line.contains("/batch") ? first : answer).utf8))) != nil,
                            "\(line): \(answer.prefix(200))")
                }
                curls += 1
            } else {
                let run = try PageHeightBinary.run(["-c", line], in: server.directory, within: 60, executable: URL(fileURLWithPath: "/bin/sh"))
                #expect(run.status == 0, "\(line): \(run.stderr)")
            }
        }
        #expect(curls >= 9)
        let reports = server.requestLines.filter { $0["endpoint"] as? String == "v1/measure" && $0["status"] as? Int == 200 }
        #expect(reports.allSatisfy { $0["reportStatus"] as? String == "ok" || $0["reportStatuses"] != nil }, "\(reports)")
        #expect(server.stop()?.status == 0)
    }

    @Test func theKubernetesDeploymentsArgsServeAndItsProbesAnswer() throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent("docs/scale-out.md"), encoding: .utf8)
        let argsLine = try #require(text.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix("args: [\"serve\"") })
        let json = argsLine.trimmingCharacters(in: .whitespaces).dropFirst("args: ".count)
        var args = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String])
        #expect(args.first == "serve" && args.contains("0.0.0.0:8080") && args.contains("/secrets/token"))
        let token = "k8s-secret-token-\(UUID().uuidString)"
        let tokenFile = FileManager.default.temporaryDirectory.appendingPathComponent("pageheight-k8s-token-\(getpid())")
        try token.write(to: tokenFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: tokenFile) }
        args = args.dropFirst().map { $0 == "0.0.0.0:8080" ? "0.0.0.0:0" : $0 == "/secrets/token" ? tokenFile.path : $0 }
        let server = try ServeProcess(args)
        let paths = text.matches(of: /path: (\/[a-z]+), port: http/).map { String($0.1) }
        #expect(paths == ["/readyz", "/healthz"])
        for path in paths { #expect(try server.curl([path]).status == 200, "\(path)") }
        #expect(try server.curl(["/v1/measure", "-d", #"{"html": "<p>x"}"#]).status == 401)
        let answer = try server.curl(["/v1/measure", "-H", "Authorization: Bearer " + token, "-d", #"{"html": "<p>x"}"#])
        #expect(answer.status == 200 && answer.json?["status"] as? String == "ok")
        #expect(server.stop()?.status == 0)
    }
}
