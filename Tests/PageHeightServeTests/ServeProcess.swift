import Foundation
import PageHeightTestSupport

/// `pageheight serve` as the tests run it: the built binary on loopback at a port the system
/// chooses, its log (JSON lines on stderr) read from a file, driven by real clients (`curl`, and
/// Python's urllib through Tests/ServeClients/serve_client.py).
final class ServeProcess: @unchecked Sendable {
    let process: Process
    let log: URL
    let directory: URL
    /// `http://127.0.0.1:PORT`.
    private(set) var url = ""

    struct NotReady: Error, CustomStringConvertible {
        var description: String
    }

    /// Starts a server with `arguments` after `serve` and waits until it is ready.
    init(_ arguments: [String], environment: [String: String?] = [:]) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pageheight-serve-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        log = directory.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let listen = arguments.contains("--listen") ? [] : ["--listen", "127.0.0.1:0"]
        process = try PageHeightBinary.start(["serve"] + listen + arguments, environment: environment,
                                             standardError: try FileHandle(forWritingTo: log))
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let events = self.events
            if let listening = events.first(where: { $0["event"] as? String == "listening" }) { url = listening["url"] as? String ?? "" }
            if events.contains(where: { $0["event"] as? String == "ready" }) { return }
            if !process.isRunning { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        kill(process.processIdentifier, SIGKILL)
        throw NotReady(description: "the server did not become ready: \(logText.suffix(600))")
    }

    var logText: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    /// Every line of its log, parsed.
    var events: [[String: Any]] {
        logText.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// The log lines of requests (those with an `id`).
    var requestLines: [[String: Any]] { events.filter { $0["id"] != nil } }

    /// Sends `signal` and waits for the exit; its status, or nil past `seconds`.
    func stop(_ signal: Int32 = SIGTERM, within seconds: Double = 60) -> PageHeightBinary.Exit? {
        kill(process.processIdentifier, signal)
        return PageHeightBinary.exit(of: process, by: Date().addingTimeInterval(seconds))
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            _ = PageHeightBinary.exit(of: process, by: Date().addingTimeInterval(10))
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// One answer as curl saw it.
    struct Answer {
        var status: Int
        /// Header fields, names lower-cased.
        var headers: [String: String]
        var body: String
        var json: [String: Any]? { try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] }
    }

    /// Runs `curl -s -i` with `arguments` (the URL's path joined to the server's when it starts
    /// with `/`).
    func curl(_ arguments: [String], within seconds: Double = 120) throws -> Answer {
        let expanded = arguments.map { $0.hasPrefix("/") ? url + $0 : $0 }
        let run = try PageHeightBinary.run(["-s", "-i", "--max-time", "\(Int(seconds))"] + expanded, within: seconds + 10,
                                           executable: URL(fileURLWithPath: "/usr/bin/curl"))
        return Self.parse(run.stdout)
    }

    /// An HTTP answer as `curl -i` prints it, after any `100 Continue`.
    static func parse(_ text: String) -> Answer {
        var rest = Substring(text)
        while true {
            guard let end = rest.range(of: "\r\n\r\n") else { return Answer(status: 0, headers: [:], body: String(rest)) }
            let head = rest[..<end.lowerBound]
            rest = rest[end.upperBound...]
            let lines = head.components(separatedBy: "\r\n")
            let status = Int(lines.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
            if status == 100 { continue }
            var headers: [String: String] = [:]
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            return Answer(status: status, headers: headers, body: String(rest))
        }
    }

    /// Runs Tests/ServeClients/serve_client.py `mode` with `arguments`; its JSON output.
    func python(_ mode: String, _ arguments: [String], within seconds: Double = 300) throws -> [String: Any] {
        let script = PageHeightBinary.root.appendingPathComponent("Tests/ServeClients/serve_client.py").path
        let run = try PageHeightBinary.run(["python3", script, mode, url] + arguments, within: seconds,
                                           executable: URL(fileURLWithPath: "/usr/bin/env"))
        guard let object = try? JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any] else {
            throw NotReady(description: "serve_client.py \(mode): \(run.stdout.suffix(300)) \(run.stderr.suffix(600))")
        }
        return object
    }

    /// A JSON body for `/v1/measure` with the HTML of the fixture page `name`.
    static func htmlBody(_ name: String, options: String? = nil) throws -> String {
        let html = try String(contentsOf: PageHeightBinary.root.appendingPathComponent("Pages/\(name)"), encoding: .utf8)
        var object: [String: Any] = ["html": html]
        if let options { object["options"] = try JSONSerialization.jsonObject(with: Data(options.utf8)) }
        return String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }

    /// Writes `text` to a file of the server's directory; its path.
    func file(_ name: String, _ text: String) throws -> String {
        let path = directory.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}
